/* SPDX-License-Identifier: MIT */
/*
 * A drive's PCIe link as the kernel shows it in sysfs: the function the block device
 * hangs off, its link's present and greatest speed and width, the greatest its upstream
 * port can train to, the AER error counters, and the slot it sits in. A link trained
 * below what both ends can do (x2 for x4, Gen4 for Gen5) is a rack defect no IO test
 * names directly. Read under a root folder: "" the host's /sys, else a recorded tree.
 */
#ifndef RB_PCIE_H
#define RB_PCIE_H

#include <stdbool.h>
#include <stddef.h>

struct rb_pcie_link {
	char address[16]; /* the function: 0000:01:00.0 */
	char slot[32];	  /* the slot whose address holds it (/sys/bus/pci/slots); "" none */
	/* speed in GT/s, width in lanes; 0 where the kernel shows none */
	double speed, max_speed;
	unsigned width, max_width;
	/* what the upstream port (the bridge above) can do at most; 0 unknown */
	double port_max_speed;
	unsigned port_max_width;
	/* AER counters (their TOTAL_ERR_* lines); negative where the kernel has none */
	double aer_correctable, aer_nonfatal, aer_fatal;
};

/*
 * The link of the PCI function that the block device M:m hangs off, under root. 0, or
 * -ENOENT when it has none (a loop device, a virtual one, conventional PCI: no link).
 */
int rb_pcie_read(const char *root, unsigned major, unsigned minor, struct rb_pcie_link *ret);
/* The most the link can train to: the lesser of the function's and its port's maxima. */
void rb_pcie_most(const struct rb_pcie_link *l, double *ret_speed, unsigned *ret_width);
/*
 * Whether the link runs below the most both ends can do (the lesser of the function's
 * and its port's maximum), said in why ("x2 of x4", "8 GT/s of 16 GT/s"); false when
 * either is unknown.
 */
bool rb_pcie_downtrained(const struct rb_pcie_link *l, char *why, size_t len);

#endif
