/*
 * registration.h: the pieces of a legacy image registration shared by
 * registration.c (the flow) and register.c (the public objects).
 */
#ifndef AIR_IMAGES_REGISTRATION_H
#define AIR_IMAGES_REGISTRATION_H

#include "transport/transport.h"

struct air_image_registration {
	char *url;
	char *manifest_sha256;
	char *status;
	char *credentials_scope;
	char *credentials_key;
	bool image_updated;
	bool cached;
};

/* A registration result with copies of the strings (any may be NULL but @url
 * and @status); NULL on OOM. */
air_image_registration *air__image_registration_new(const char *url, const char *digest,
                                                    const char *status, const char *scope,
                                                    const char *key);

/* GET images:get for @url (normalised); errors as the transport reports them
 * (a 404 means not registered). */
int air__image_get(air_client *c, const air__ctx *ctx, const char *url, json_t **reply,
                   air_error **err);

#endif /* AIR_IMAGES_REGISTRATION_H */
