"""images push: tag and push a local container image to the workspace registry."""

import collections
import ctypes as C

from . import constants as K
from ._lib import lib
from ._util import enc, take_str
from .errors import check

ImagePush = collections.namedtuple("ImagePush", "uc_image registry_image")
ImagePush.__doc__ = ('Result of push_image(): "<catalog>.<schema>.<artifact>:<tag>" (the '
                     'environment.unity_catalog_image value) and the full registry reference.')

_STR_OPTS = {
    "artifact": K.IMAGE_ARTIFACT, "profile": K.IMAGE_PROFILE,
    "registry_host": K.IMAGE_REGISTRY_HOST, "docker": K.IMAGE_DOCKER,
    "databricks_cli": K.IMAGE_DATABRICKS_CLI,
}


def push_image(source, catalog, schema, *, artifact=None, profile=None, registry_host=None,
               docker=None, databricks_cli=None, pull=False):
    """Push local image @source to <catalog>.<schema> (the `air images push`
    command): runs the docker CLI. Returns an ImagePush."""
    out = C.c_void_p()
    check(lib.air_image_push_options_new(C.byref(out)))
    opts = out.value
    try:
        values = {K.IMAGE_SOURCE: source, K.IMAGE_CATALOG: catalog, K.IMAGE_SCHEMA: schema}
        given = {"artifact": artifact, "profile": profile, "registry_host": registry_host,
                 "docker": docker, "databricks_cli": databricks_cli}
        for name, value in given.items():
            if value is not None:
                values[_STR_OPTS[name]] = value
        for opt, value in values.items():
            check(lib.air_image_push_options_set_str(opts, opt, enc(value)))
        if pull:
            check(lib.air_image_push_options_set_int(opts, K.IMAGE_PULL, 1))
        uc = C.c_void_p()
        reg = C.c_void_p()
        err = C.c_void_p()
        rc = lib.air_image_push(opts, C.byref(uc), C.byref(reg), C.byref(err))
        uc_s, reg_s = take_str(uc), take_str(reg)
        check(rc, err)
        return ImagePush(uc_s, reg_s)
    finally:
        lib.air_image_push_options_free(opts)
