/*
 * namemap.c: the node name map (ibnetdiscover(8) format, read by OpenSM
 * 3.3's complib for node_name_map_name):
 *   # comment
 *   0x0002c9030001e3f2 "leaf-01 port side"
 * A line is a GUID (any base strtoull takes), blanks, then the name: the
 * text up to the first '"' or '#' after an optional opening quote. A GUID
 * alone names nothing. The first name of a GUID wins. A GUID that does
 * not parse makes OpenSM drop the whole map with a warning, and so do we.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/util.h"
#include "model/namemap.h"

struct ibsm_namemap {
	struct u64map names; /* GUID -> char * (owned) */
};

void namemap_del(struct ibsm_namemap *m)
{
	if (!m)
		return;
	u64map_fini_free(&m->names, free);
	free(m);
}

const char *namemap_get(const struct ibsm_namemap *m, uint64_t guid)
{
	return m ? u64map_get(&m->names, guid) : NULL;
}

size_t namemap_count(const struct ibsm_namemap *m)
{
	size_t pos = 0, n = 0;
	uint64_t key;
	void *val;

	while (m && u64map_next(&m->names, &pos, &key, &val))
		n++;
	return n;
}

/* the name after the GUID: "quoted", or bare up to a '#'; NULL for none */
static char *line_name(char *p)
{
	char *e;

	while (isspace((unsigned char)*p))
		p++;
	if (*p == '"')
		p++;
	e = p + strcspn(p, "\"#\r\n");
	*e = '\0';
	return *p ? p : NULL;
}

/*
 * One line; 0, or -EINVAL when its GUID does not parse. GUID 0 is no
 * node's: the line is kept by OpenSM and never used, here skipped.
 */
static int map_line(struct ibsm_namemap *m, char *line)
{
	char *p = line, *e, *name;
	uint64_t guid;

	while (isspace((unsigned char)*p))
		p++;
	if (!*p || *p == '#')
		return 0;
	errno = 0;
	guid = strtoull(p, &e, 0);
	if (e == p || errno || (*e && !isspace((unsigned char)*e) && *e != '#'))
		return -EINVAL;
	name = line_name(e);
	if (name && guid && !u64map_get(&m->names, guid))
		u64map_put(&m->names, guid, xstrdup(name));
	return 0;
}

int namemap_load(const char *path, struct ibsm_namemap **out)
{
	FILE *f = fopen(path ? path : NAMEMAP_DEFAULT_PATH, "r");
	int r;

	*out = NULL;
	if (!f)
		return path || errno != ENOENT ? -errno : 0;
	r = namemap_read(f, path ? path : NAMEMAP_DEFAULT_PATH, out);
	fclose(f);
	return r;
}

int namemap_read(FILE *f, const char *name, struct ibsm_namemap **out)
{
	struct ibsm_namemap *m;
	char line[1024];
	unsigned lineno = 0;

	*out = NULL;
	m = xcalloc(1, sizeof(*m));
	u64map_init(&m->names);
	while (fgets(line, sizeof(line), f)) {
		bool whole = strchr(line, '\n') || feof(f);

		lineno++;
		if (map_line(m, line) < 0) {
			log_warnx("%s:%u: not a node guid, node name map not used", name, lineno);
			namemap_del(m);
			return -EINVAL;
		}
		/* the rest of an overlong line is more of the same name: skip it */
		if (!whole) {
			int c;

			while ((c = fgetc(f)) != EOF && c != '\n')
				;
		}
	}
	if (ferror(f)) {
		namemap_del(m);
		return -EIO;
	}
	*out = m;
	return 0;
}
