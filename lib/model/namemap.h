/*
 * namemap.h: OpenSM's node_name_map_name, the node name map of
 * ibnetdiscover(8): lines "GUID "name"" that give nodes names for logs,
 * dumps and ibsmctl in place of their NodeDescription.
 */
#ifndef IBSM_NAMEMAP_H
#define IBSM_NAMEMAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ibsm_namemap;

/* where OpenSM looks when node_name_map_name is (null); used only if it exists */
#define NAMEMAP_DEFAULT_PATH "/etc/opensm/ib-node-name-map"

/*
 * Read a map. path NULL: the default file, silently nothing when it does not
 * exist. As OpenSM, a line that does not parse refuses the whole map (a
 * warning names file:line). 0 with *out (NULL when there is none), or -errno.
 */
int namemap_load(const char *path, struct ibsm_namemap **out);
/* the same from an open stream; name is for the warning */
int namemap_read(FILE *f, const char *name, struct ibsm_namemap **out);
void namemap_del(struct ibsm_namemap *m);
/* the name of a node GUID, or NULL */
const char *namemap_get(const struct ibsm_namemap *m, uint64_t guid);
/* entries held */
size_t namemap_count(const struct ibsm_namemap *m);

#endif
