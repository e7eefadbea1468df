/**
 * @file
 * air.h: umbrella header of libair, a C client for Databricks AI Runtime.
 *
 * Include this one header; the others may also be included on their own.
 * See docs/ for the guide, the threading rules and the error model.
 */
#ifndef AIR_AIR_H
#define AIR_AIR_H

#include "common.h"
#include "types.h"
#include <air/version.h> /* generated: in a build tree, under the build directory's include/ */
#include "global.h"
#include "errors.h"
#include "interrupt.h"
#include "options.h"
#include "config.h"
#include "client.h"
#include "submit.h"
#include "run.h"
#include "logs.h"
#include "failure.h"
#include "pool.h"
#include "images.h"
#include "bundle.h"
#include "metrics.h"
#include "check.h"
#include "sweep.h"

#endif /* AIR_AIR_H */
