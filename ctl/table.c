/*
 * table.c: JSON values as text and aligned tables of them, for ibsmctl's
 * human output (see table.h).
 */
#include "config.h"

#include <err.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

void *table_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		warnx("out of memory");
		exit(EXIT_COMM);
	}
	return p;
}

char *table_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(table_xrealloc(NULL, n), s, n);
}

/* member at a dotted path ("sm.state"), or NULL */
const json_t *jget(const json_t *obj, const char *path)
{
	char key[64];
	const char *dot;
	size_t n;

	while (obj && (dot = strchr(path, '.'))) {
		n = (size_t)(dot - path);
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		obj = json_object_get(obj, key);
		path = dot + 1;
	}
	return obj ? json_object_get(obj, path) : NULL;
}

/* any value as text for a table cell (malloc'd); missing or null is "-" */
char *jfmt(const json_t *v)
{
	char buf[64];

	switch (v ? json_typeof(v) : JSON_NULL) {
	case JSON_STRING:
		return table_xstrdup(json_string_value(v));
	case JSON_INTEGER:
		snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return table_xstrdup(buf);
	case JSON_REAL:
		snprintf(buf, sizeof(buf), "%g", json_real_value(v));
		return table_xstrdup(buf);
	case JSON_TRUE:
		return table_xstrdup("yes");
	case JSON_FALSE:
		return table_xstrdup("no");
	case JSON_OBJECT:
	case JSON_ARRAY: {
		char *s = json_dumps(v, JSON_COMPACT);

		return s ? s : table_xstrdup("?");
	}
	default:
		return table_xstrdup("-");
	}
}

bool jint(const json_t *v, json_int_t *out)
{
	if (!json_is_integer(v))
		return false;
	*out = json_integer_value(v);
	return true;
}

void fmt_duration(char *buf, size_t len, json_int_t sec)
{
	if (sec < 60)
		snprintf(buf, len, "%llds", (long long)sec);
	else if (sec < 3600)
		snprintf(buf, len, "%lldm %02llds", (long long)sec / 60, (long long)sec % 60);
	else if (sec < 86400)
		snprintf(buf, len, "%lldh %02lldm", (long long)sec / 3600,
			 (long long)sec % 3600 / 60);
	else
		snprintf(buf, len, "%lldd %02lldh", (long long)sec / 86400,
			 (long long)sec % 86400 / 3600);
}

/* ---- aligned tables ---- */

void table_init(struct table *t, size_t ncols, const char *align)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->align = align;
}

char **table_new_row(struct table *t, bool heading)
{
	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->cells = table_xrealloc(t->cells, t->cap * t->ncols * sizeof(char *));
		t->heading = table_xrealloc(t->heading, t->cap * sizeof(bool));
	}
	t->heading[t->nrows] = heading;
	memset(&t->cells[t->nrows * t->ncols], 0, t->ncols * sizeof(char *));
	return &t->cells[t->nrows++ * t->ncols];
}

/* a row of ncols cells; each is taken over (malloc'd), NULL shows as "-" */
void table_add_own(struct table *t, ...)
{
	char **row = table_new_row(t, false);
	va_list ap;

	va_start(ap, t);
	for (size_t i = 0; i < t->ncols; i++)
		row[i] = va_arg(ap, char *);
	va_end(ap);
}

/* a line of its own, outside the columns */
void table_heading(struct table *t, const char *text)
{
	table_new_row(t, true)[0] = table_xstrdup(text);
}

void table_print(const struct table *t, FILE *f)
{
	size_t *w = calloc(t->ncols, sizeof(size_t));

	if (!w)
		exit(EXIT_COMM);
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < t->ncols && !t->heading[r]; c++) {
			const char *s = t->cells[r * t->ncols + c];
			size_t n = s ? strlen(s) : 1;

			if (n > w[c])
				w[c] = n;
		}
	for (size_t r = 0; r < t->nrows; r++) {
		if (t->heading[r]) {
			fprintf(f, "%s\n", t->cells[r * t->ncols]);
			continue;
		}
		char **row = &t->cells[r * t->ncols];
		size_t ncols = t->ncols;

		/* empty cells at the end of a row: no padding before them */
		while (ncols > 1 && row[ncols - 1] && !row[ncols - 1][0])
			ncols--;
		for (size_t c = 0; c < ncols; c++) {
			const char *s = row[c];
			bool last = c + 1 == ncols;
			bool right = t->align && t->align[c] == 'r';

			if (!s)
				s = "-";
			if (right)
				fprintf(f, "%*s", (int)w[c], s);
			else if (last)
				fputs(s, f);
			else
				fprintf(f, "%-*s", (int)w[c], s);
			fputs(last ? "\n" : "  ", f);
		}
	}
	free(w);
}

void table_free(struct table *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->heading);
}

void print_json(const json_t *j)
{
	char *txt = json_dumps(j, JSON_INDENT(2));

	if (txt) {
		puts(txt);
		free(txt);
	}
}
