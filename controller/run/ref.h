/* SPDX-License-Identifier: MIT */
/* The run an object belongs to: what every manifest, event and key of a run names. */
#ifndef SB_CONTROLLER_RUN_REF_H
#define SB_CONTROLLER_RUN_REF_H

/* The run an object belongs to (borrowed strings). */
struct br_ref {
	const char *ns;
	const char *name;
	const char *uid;
};

#endif
