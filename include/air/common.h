/**
 * @file
 * libair - client library for Databricks AI Runtime workloads.
 *
 * common.h: export and declaration macros shared by every public header.
 */
#ifndef AIR_COMMON_H
#define AIR_COMMON_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32) && !defined(AIR_STATIC)
#  ifdef AIR_BUILDING_LIBRARY
#    define AIR_EXTERN __declspec(dllexport)
#  else
#    define AIR_EXTERN __declspec(dllimport)
#  endif
#elif defined(__GNUC__) && __GNUC__ >= 4
#  define AIR_EXTERN __attribute__((visibility("default")))
#else
#  define AIR_EXTERN
#endif

#if defined(__GNUC__)
#  define AIR_DEPRECATED __attribute__((deprecated))
#elif defined(_MSC_VER)
#  define AIR_DEPRECATED __declspec(deprecated)
#else
#  define AIR_DEPRECATED
#endif

#ifdef __cplusplus
#  define AIR_BEGIN_DECLS extern "C" {
#  define AIR_END_DECLS   }
#else
#  define AIR_BEGIN_DECLS
#  define AIR_END_DECLS
#endif

#endif /* AIR_COMMON_H */
