/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * numaplan/api.h - the version of the interface, and what marks a call as
 * part of it.
 *
 * libnumaplan is built with hidden visibility: a function is exported
 * only when its declaration in these headers carries NP_API.  Everything
 * else (the slot pool, the rails of hca-near, the XML checker's plumbing)
 * stays inside the library and may change at any time.
 */
#ifndef NUMAPLAN_API_H
#define NUMAPLAN_API_H

/* 0xMMmmpp: major, minor, patch of the interface (not of the package).
 * The minor grows with every addition, the major with every change that
 * breaks a caller.  NUMAPLAN_API_VERSION is what a program was compiled
 * against; np_get_api_version() is what the library it runs with
 * implements. */
#define NUMAPLAN_API_VERSION 0x000500

#if defined(__GNUC__) && __GNUC__ >= 4
#define NP_API __attribute__((visibility("default")))
#else
#define NP_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* NUMAPLAN_API_VERSION of the running library. */
NP_API unsigned np_get_api_version(void);

#ifdef __cplusplus
}
#endif

#endif /* NUMAPLAN_API_H */
