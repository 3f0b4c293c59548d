/*
 * checkconf.h: what a start would say about a configuration, beyond the
 * file's own lines: keys ibsmd does not honour, routing engines that do
 * not exist, files named by the configuration that are missing or do not
 * parse. --check-config prints it all; a start logs the warnings and
 * refuses on the errors (and, with strict_config, on the warnings).
 */
#ifndef IBSM_CHECKCONF_H
#define IBSM_CHECKCONF_H

#include <stdbool.h>
#include <stdio.h>

struct ibsm_conf;
struct conf_errors;

/*
 * Check c as a start would: every finding is added to errs (stops the
 * start) or warns (logged, the start goes on), each "file:line: message"
 * where the key was set in the file. What the SM checks again when it
 * starts (the routing engine chain against the plug-ins, and the files it
 * reads: node_name_map_name, per_module_logging_file, prefix_routes_file,
 * sa_db_file) only when all is true: for --check-config and strict_config.
 */
void checkconf_run(const struct ibsm_conf *c, struct conf_errors *errs, struct conf_errors *warns,
		   bool all);
/*
 * --check-config's report on out: one line per finding, "error: ..." or
 * "warning: ...", then one summary line. Returns the exit status: 0 when
 * the daemon would start, 1 when it would not.
 */
int checkconf_report(FILE *out, const char *conf_path, const struct ibsm_conf *c,
		     const struct conf_errors *errs, const struct conf_errors *warns);

#endif
