/*
 * topofile.h: read topology files in the format ibnetdiscover writes and
 * ibsim reads (ibsim "net" files): node header lines
 *     Switch 36 "S-0002c90300001234"   # comment
 *     Ca 2 "H-0002c90300005678"
 *     Hca 2 "host1"                     (ibsim spelling)
 * followed by one line per cabled port
 *     [1] "H-0002c90300005678"[1](2c90300005679)   # comment
 *     [1](2c90300005679) "S-0002c90300001234"[3]
 * plus optional ibnetdiscover attribute lines (vendid=, devid=, sysimgguid=,
 * switchguid=0x..(..), caguid=, rtguid=) and '#' comments. Used by offline
 * mode, the unit tests' fake fabric and the tests' own checks.
 */
#ifndef IBSM_TOPOFILE_H
#define IBSM_TOPOFILE_H

#include <stdint.h>
#include <stddef.h>

#include "conf/conf.h"

struct topofile_port {
	int32_t peer;        /* index of the node at the other end, -1 if uncabled */
	uint8_t peer_port;
	uint64_t guid;       /* port GUID: the file's "(hex)", else node GUID (+ port for CAs) */
};

struct topofile_node {
	char *name;          /* the quoted node id */
	char *desc;          /* node description: the "# "..."" comment, else name */
	uint8_t type;        /* enum ibsm_node_type */
	uint8_t nports;
	uint64_t guid;       /* from switchguid=/caguid=/"S-<hex>" names, else synthesised */
	uint64_t sysguid;
	unsigned line;       /* header line in the file */
	struct topofile_port *ports; /* [0..nports] */
};

struct topofile {
	struct topofile_node *nodes; /* in file order */
	size_t n;
};

/*
 * Parse a topology file. Every problem (syntax, unknown peer, port out of
 * range, links that do not match from both ends, duplicate names) is added
 * to errs as "path:line: reason"; returns 0 when the file is usable, else
 * -EINVAL (or -errno when unreadable) and *out is NULL.
 * Links may be listed from one end only; they are mirrored.
 * Nodes without a GUID in the file get a deterministic synthetic one, the
 * one ibsim gives the same file (switches from 0x200000, CAs from 0x100000).
 */
int topofile_load(const char *path, struct topofile **out, struct conf_errors *errs);
/* same, from a string (tests, fuzzing); name is used in messages */
int topofile_parse(const char *text, size_t len, const char *name, struct topofile **out,
		   struct conf_errors *errs);
void topofile_free(struct topofile *t);
/* index of a node by name, -1 if none */
int topofile_find(const struct topofile *t, const char *name);

#endif
