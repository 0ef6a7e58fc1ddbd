/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce network attachment (sroce_net.c): the per-netns RoCEv2 UDP
 * sockets (port 4791) and the devices of each netns, the receive entries
 * (the sockets' encap_rcv and each device's loopback queue), per-device
 * net init/fini. Their objects are in sroce_netns.h, address vectors in
 * sroce_av.h, transmit in sroce_xmit.h, receive validation in
 * sroce_recv.h.
 *
 * Contexts: sroce_net_dev_init/fini and sroce_net_init/exit sleep (process
 * context only).
 */
#ifndef SROCE_NET_H
#define SROCE_NET_H

struct sroce_dev;

/* Module init/exit: the per-netns bookkeeping. */
int sroce_net_init(void);
void sroce_net_exit(void);

/* Device life: the UDP sockets of the device's netns, loopback queue. */
int sroce_net_dev_init(struct sroce_dev *sdev);
void sroce_net_dev_fini(struct sroce_dev *sdev);

#endif /* SROCE_NET_H */
