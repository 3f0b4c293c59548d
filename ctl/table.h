/*
 * table.h: what ibsmctl's human output is made of: JSON values as text
 * (a member at a dotted path, any value as a cell) and aligned tables of
 * such cells, printed with their column widths computed from the data.
 * Allocation failure ends the program with exit status 2 (a client has
 * nothing to save).
 */
#ifndef IBSMCTL_TABLE_H
#define IBSMCTL_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum { EXIT_OK = 0, EXIT_NO = 1, EXIT_COMM = 2 };

/* realloc/strdup that exit(EXIT_COMM) when memory runs out */
void *table_xrealloc(void *p, size_t n);
char *table_xstrdup(const char *s);

/* member at a dotted path ("sm.state"), or NULL */
const json_t *jget(const json_t *obj, const char *path);
/* any value as text for a table cell (malloc'd); missing or null is "-" */
char *jfmt(const json_t *v);
/* *out = v when v is an integer */
bool jint(const json_t *v, json_int_t *out);
/* seconds as "42s", "3m 05s", "2h 07m", "4d 01h" */
void fmt_duration(char *buf, size_t len, json_int_t sec);
/* j indented, on stdout */
void print_json(const json_t *j);

struct table {
	size_t ncols;
	const char *align; /* per column 'l' or 'r'; NULL: all left */
	char **cells;	   /* nrows * ncols, owned; a heading row has only cell 0 */
	bool *heading;
	size_t nrows, cap;
};

/* an empty table of ncols columns; align is borrowed */
void table_init(struct table *t, size_t ncols, const char *align);
/* a new row of ncols NULL cells for the caller to fill with malloc'd text */
char **table_new_row(struct table *t, bool heading);
/* a row of ncols cells; each is taken over (malloc'd), NULL shows as "-" */
void table_add_own(struct table *t, ...);
/* a line of its own, outside the columns */
void table_heading(struct table *t, const char *text);
/* the rows, columns padded to their widest cell */
void table_print(const struct table *t, FILE *f);
void table_free(struct table *t);

#endif
