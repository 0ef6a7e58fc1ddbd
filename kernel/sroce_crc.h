/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The CRC-32 of the ICRC payload (sroce_crc32(), declared in
 * core/core_types.h for the core's icrc.c): module init picks the
 * accelerated crypto driver when there is one.
 */
#ifndef SROCE_CRC_H
#define SROCE_CRC_H

void sroce_crc_module_init(void);
void sroce_crc_module_exit(void);

#endif /* SROCE_CRC_H */
