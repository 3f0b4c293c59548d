/*
 * partconf.h: OpenSM's partitions.conf (partition_config_file, see
 * opensm(8) "PARTITION CONFIGURATION"): the partitions, who is a member of
 * each (full, limited or both) and the multicast groups IPoIB needs in
 * them. Only the file: resolving members against the fabric and building
 * P_Key tables is partition.c's.
 *
 * Grammar (a statement may span lines; '#' starts a comment):
 *   Name[=PKey][,flag[=value]]... : member[,member]... ;
 *   flags:   ipoib indx0 defmember=full|limited|both mtu= rate= sl= scope=
 *            Q_Key=|qkey= TClass=|tclass= FlowLabel=|flow_label=
 *   members: ALL ALL_CAS ALL_SWITCHES ALL_ROUTERS SELF NONE or a port GUID,
 *            each optionally =full|=limited|=both (a prefix does: "limi");
 *            or a line "mgid=GID[,mtu=..,rate=..,sl=..,scope=..,Q_Key=..,
 *            TClass=..,FlowLabel=..]" that ends at the end of its line.
 * Statements with the same name and P_Key merge (OpenSM's way of splitting
 * a long member list); a P_Key under two names, or a name with two P_Keys,
 * is an error. Within a partition the last statement naming a port wins.
 */
#ifndef IBSM_PARTCONF_H
#define IBSM_PARTCONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf/conf.h"

#define PARTCONF_NAME_MAX    64          /* with the NUL */
#define PARTCONF_FILE_MAX    (16u << 20) /* bytes */
#define PARTCONF_MAX_ERRORS  50          /* then parsing stops */
#define PARTCONF_MAX_PARTS   32767       /* every P_Key 0x0001..0x7fff */
#define PARTCONF_ITEM_MAX    256         /* one member, flag or mgid line */

#define PARTCONF_DEFAULT_PKEY 0x7fff
#define PARTCONF_MTU          4      /* 2048 */
#define PARTCONF_RATE         3      /* 10 Gb/s */
#define PARTCONF_SCOPE        2      /* link-local */
#define PARTCONF_IPOIB_QKEY   0x0b1b

enum partconf_who {
	PC_GUID = 0,
	PC_ALL,
	PC_ALL_CAS,
	PC_ALL_SWITCHES,
	PC_ALL_ROUTERS,
	PC_SELF,
};

/* membership bits: both is full | limited */
enum partconf_membership { PC_LIMITED = 1, PC_FULL = 2, PC_BOTH = 3 };

struct partconf_member {
	uint64_t guid;      /* PC_GUID: the port GUID */
	uint8_t who;        /* enum partconf_who */
	uint8_t membership; /* enum partconf_membership */
	unsigned line;      /* 0: built in */
};

/* parameters of a multicast group (IBA enums: mtu 1-5, rate 2-63) */
struct partconf_mcast {
	uint8_t mtu, rate, sl;
	uint16_t scope_mask; /* bit n: scope n; 0: the group's own (mgid) or link-local */
	uint32_t qkey;
	uint8_t tclass;
	uint32_t flow_label;
};

/* an mgid line */
struct partconf_mgroup {
	uint8_t mgid[16];   /* IP groups: P_Key bits (4-5) filled in, full bit set */
	struct partconf_mcast m;
	bool ip;            /* IPv4/IPv6 signature 0x401b/0x601b */
	unsigned line;
};

struct partconf_part {
	char name[PARTCONF_NAME_MAX];
	uint16_t pkey;                  /* low 15 bits, never 0 */
	bool ipoib, indx0;
	struct partconf_mcast m;        /* the IPoIB broadcast group; defaults for mgids */
	struct partconf_member *members; /* in file order; owned */
	size_t nmembers;
	struct partconf_mgroup *groups;  /* owned */
	size_t ngroups;
	unsigned line;                  /* first definition; 0: built in */
	/* parsing state */
	size_t members_cap, groups_cap;
	uint8_t given;                  /* parameters set explicitly */
	bool pkey_auto, implicit_name;
};

struct partconf {
	struct partconf_part *parts; /* the default partition first; owned */
	size_t n;
	char *file;                  /* where it came from; NULL: built in */
};

/*
 * Parse a whole file's text (len bytes, any content). Every error is added
 * to errs as "file:line: reason" (at most PARTCONF_MAX_ERRORS). Returns the
 * number of errors; *out is set only when there are none (free it with
 * partconf_free). The default partition is always there: the file's rule
 * for P_Key 0x7fff merges into "Default=0x7fff : ALL=limited, SELF=full"
 * as in OpenSM.
 */
int partconf_parse(const char *text, size_t len, const char *file, struct partconf **out,
		   struct conf_errors *errs);
/*
 * Read and parse path: as partconf_parse, or -errno when the file cannot
 * be read (-ENOENT: it does not exist; the reason is in errs, except for
 * -ENOENT).
 */
int partconf_load(const char *path, struct partconf **out, struct conf_errors *errs);
/* without a file: "Default=0x7fff,ipoib : ALL=full ;" as in OpenSM */
struct partconf *partconf_default(void);
void partconf_free(struct partconf *pc);
/* the partition holding P_Key pkey (low 15 bits compared), or NULL */
const struct partconf_part *partconf_find(const struct partconf *pc, uint16_t pkey);
/* "full", "limited", "both" */
const char *partconf_membership_name(unsigned m);

#endif
