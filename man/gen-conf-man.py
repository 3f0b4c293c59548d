#!/usr/bin/env python3
"""Write ibsmd.conf(5) from lib/conf/conf_keys.def, the one table of every key.

usage: gen-conf-man.py [--version V] [--sysconfdir DIR] CONF_KEYS_DEF OUTPUT

Every K(name, type, default, min, max, reload, support, description) line
becomes one entry: its description, type and range, default, whether SIGHUP
can change it and whether ibsmd honours it. Keys are grouped by topic (the
GROUPS table below, by name); a key no group claims lands in "Other keys",
so a new key always shows up. Standard library only. The output is written
to a temporary file and renamed, so a failed run leaves no half page.
"""

import argparse
import os
import re
import sys
import tempfile

# ---- reading conf_keys.def ----

TOKEN = re.compile(
    r"""\s*(?:
        (?P<str>"(?:[^"\\\n]|\\.)*")
      | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<num>-?(?:0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]*)(?![0-9A-Za-z_])
      | (?P<punct>[(),])
    )""",
    re.VERBOSE,
)

ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'"}


class DefError(Exception):
    pass


def strip_comments(text):
    """Blank out /* */ and // comments, keeping line breaks for line numbers."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise DefError("unterminated comment")
            out.append(re.sub(r"[^\n]", " ", text[i:j + 2]))
            i = j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text[i] == '"':
            m = re.compile(r'"(?:[^"\\\n]|\\.)*"').match(text, i)
            if not m:
                raise DefError("line %d: unterminated string" % (text.count("\n", 0, i) + 1))
            out.append(m.group(0))
            i = m.end()
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def unquote(lit):
    body, out, i = lit[1:-1], [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            out.append(ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def parse_int(tok):
    """A C integer literal: 0x hex, leading-0 octal, decimal."""
    t = tok.rstrip("uUlL")
    neg = t.startswith("-")
    t = t.lstrip("-")
    if t[:2] in ("0x", "0X"):
        v = int(t[2:], 16)
    elif len(t) > 1 and t[0] == "0":
        v = int(t[1:], 8)
    else:
        v = int(t, 10)
    return -v if neg else v


def read_keys(path):
    with open(path, encoding="utf-8") as f:
        text = strip_comments(f.read())
    keys, pos = [], 0
    for m in re.finditer(r"\bK\s*\(", text):
        if m.start() < pos:
            continue
        line = text.count("\n", 0, m.start()) + 1
        args, cur, i = [], [], m.end()
        while True:
            t = TOKEN.match(text, i)
            if not t or t.end() == i:
                raise DefError("%s:%d: cannot parse K(...)" % (path, line))
            i = t.end()
            if t.group("punct") == ")":
                args.append(cur)
                break
            if t.group("punct") == ",":
                args.append(cur)
                cur = []
            elif t.group("punct") == "(":
                raise DefError("%s:%d: nested parentheses in K(...)" % (path, line))
            else:
                cur.append(t)
        pos = i
        if len(args) != 8 or any(not a for a in args):
            raise DefError("%s:%d: K() needs 8 arguments" % (path, line))

        def one(a, kind):
            if len(a) != 1 or not a[0].group(kind):
                raise DefError("%s:%d: expected a %s, got %r"
                               % (path, line, kind, " ".join(t.group(0).strip() for t in a)))
            return a[0].group(kind)

        def string(a):
            # adjacent literals concatenate, as in C
            if not all(t.group("str") for t in a):
                raise DefError("%s:%d: expected a string" % (path, line))
            return "".join(unquote(t.group("str")) for t in a)

        name = one(args[0], "word")
        typ = one(args[1], "word")
        if typ not in ("BOOL", "INT", "U64", "STR"):
            raise DefError("%s:%d: %s: unknown type %s" % (path, line, name, typ))
        sup = one(args[6], "word")
        if sup not in ("YES", "NO"):
            raise DefError("%s:%d: %s: support is YES or NO, not %s" % (path, line, name, sup))
        mn, mx = one(args[3], "num"), one(args[4], "num")
        keys.append({
            "name": name,
            "type": typ,
            "default": string(args[2]),
            "min": mn.rstrip("uUlL"),
            "max": mx.rstrip("uUlL"),
            "min_v": parse_int(mn),
            "max_v": parse_int(mx),
            "reload": parse_int(one(args[5], "num")) != 0,
            "supported": sup == "YES",
            "desc": string(args[7]),
            "line": line,
        })
    if not keys:
        raise DefError("%s: no K(...) lines" % path)
    seen = set()
    for k in keys:
        if k["name"] in seen:
            raise DefError("%s:%d: %s defined twice" % (path, k["line"], k["name"]))
        seen.add(k["name"])
    return keys


# ---- grouping ----

# (title, intro, patterns): a key goes to the first group with a pattern
# matching its whole name. Anything left over goes to "Other keys".
GROUPS = [
    ("SM identity and other SMs",
     "Which port ibsmd runs on and how it presents itself to other subnet managers.",
     [r"guid", r"sm_priority", r"sm_key", r"sa_key", r"subnet_prefix", r"sm_inactive",
      r"ignore_other_sm", r"sminfo_polling_timeout", r"polling_retry_number",
      r"sm_assigned_guid"]),
    ("M_Key", None, [r"m_key.*"]),
    ("LIDs",
     "LID assignment. Ports keep the LID they hold, else their guid2lid entry, else get "
     "the lowest free block.",
     [r"lmc.*", r"reassign_lids", r"honor_guid2lid_file"]),
    ("Port and link parameters",
     "Values written into PortInfo and SwitchInfo of every port and switch, as OpenSM "
     "writes them: a port gets a Set only where it holds other values, and new "
     "LinkWidthEnabled, LinkSpeedEnabled or LinkSpeedExtEnabled values go in a Set of their "
     "own before the port is armed (the link retrains on them). fdr10 reads and writes the "
     "Mellanox attribute MlnxExtPortInfo, of Mellanox devices only (SwitchX and later "
     "switches, ConnectX-3 and later CAs, as OpenSM 3.3.23 lists them), and of a switch's "
     "port 0 only when it is an enhanced port 0. Unlike OpenSM, a value that a port did not "
     "keep after it accepted the Set is not sent again every sweep.",
     [r"sm_sl", r"packet_life_time", r".*vl_stall_count", r".*head_of_queue_lifetime",
      r"max_op_vls", r"force_link_.*", r"fdr10", r"subnet_timeout", r".*_errors_threshold"]),
    ("Sweeps", None,
     [r"sweep_.*", r".*_sweep", r"sweep_on_trap"]),
    ("Routing", None,
     [r"routing_engine", r"port_prof.*", r"hop_weights_file", r"port_search_ordering_file",
      r"avoid_throttled_links", r"connect_roots", r"use_ucast_cache", r"lid_matrix_dump_file",
      r"lfts_file", r"root_guid_file", r"cn_guid_file", r"io_guid_file",
      r"quasi_ftree_indexing", r"max_reverse_hops", r"ids_guid_file", r"guid_routing_order.*",
      r"do_mesh_analysis", r"lash_.*", r"nue_.*", r"port_shifting", r"scatter_ports",
      r"torus_config", r"prefix_routes_file"]),
    ("MAD transport",
     "How many SMPs ibsmd keeps in flight and how long it waits for them.",
     [r"max_wire_smps.*", r"max_smps_timeout", r"transaction_.*", r"long_transaction_timeout",
      r"max_msg_fifo_timeout", r"single_thread"]),
    ("Partitions", None,
     [r"partition_.*", r"no_partition_enforcement", r"part_enforce", r"allow_both_pkeys",
      r"keep_pkey_indexes"]),
    ("Multicast and SA", None,
     [r"use_mfttop", r"sa_db_.*", r".*mcgroup.*", r"use_original_extended_sa_rates_only",
      r"disable_multicast", r"consolidate_ipv6_snm_req", r"drop_event_subscriptions",
      r"no_clients_rereg"]),
    ("Quality of service",
     "With qos TRUE ibsmd writes SLtoVLMappingTable, VLArbitrationTable and PortInfo "
     "VLHighLimit as OpenSM 3.3.23 does. Each port class has its keys: qos_ca_* (CA ports), "
     "qos_rtr_* (router ports), qos_sw0_* (an enhanced switch port 0), qos_swe_* (switch "
     "external ports); a class key that is unset takes the qos_* key, and an unset qos_* "
     "key OpenSM's built-in table (high limit 0, vlarb_high 0:4, vlarb_low 0:0 then 1:4 to "
     "14:4, sl2vl 0,1,...,14,7). A VL arbitration table is up to 64 VL:weight pairs, an "
     "SL2VL table 16 VLs, comma separated, read as OpenSM reads them: a number as C's "
     "strtoul (0x10 and 010 too), one character after it skipped whatever it is, junk read "
     "as 0, entries past the 16th or 64th dropped, missing ones 0, a VL arbitration VL "
     "taken modulo 15 and an SL2VL VL modulo 16; such values are warnings naming "
     "file:line and the key (refused with strict_config), and the table is the one OpenSM "
     "would write. Every table's VLs are masked for the OperationalVLs of the port it goes "
     "to (VL 15 in SL2VL stays 15): a port operating VL0-3 (max_op_vls 3) gets VL 5 as 1; "
     "ibsmd logs once per class and OperationalVLs when it masks. Switches get VL "
     "arbitration on every external port that is not down and SL2VL for every input port "
     "of those output ports (and of an enhanced port 0) when port 0 reports "
     "IsSLMappingSupported; CA and router ports get theirs when they report it; VL "
     "arbitration blocks as VLArbLowCap and VLArbHighCap allow. A table is sent only when "
     "it differs from what the port answered to the last Set; a port that came up, a new "
     "node, the first sweep as master and a SIGHUP that changes a QoS key send everything. "
     "A port that refuses a table is an event (qos_refused), a log line and in ibsmctl qos; "
     "the sweep goes on. With QoS off nothing is sent and VLHighLimit stays as the port "
     "holds it. Differences from OpenSM: OpenSM writes the tables of switch ports in a "
     "heavy sweep before it sets their OperationalVLs, so its first sweep masks them for "
     "the VLs the ports operated when found and its next heavy sweep corrects them; ibsmd "
     "writes them after, masked for the VLs the ports operate. SLtoVLMappingTableRecord and "
     "VLArbitrationTableRecord answer the tables ibsmd knows the ports hold; OpenSM answers "
     "zeros for tables it never wrote. A routing engine that puts paths on virtual layers "
     "(SLs, mapped to VLs as SL mod its VL count) overrides the SL2VL tables for the SLs it "
     "uses, in every class, with qos TRUE and qos FALSE alike (OpenSM needs qos TRUE); "
     "the event qos_routing_sl2vl says so once per mapping (ibsmd(8), Ports and routing).",
     [r"qos.*", r"use_optimized_slvl", r"suppress_sl2vl_mad_status_errors"]),
    ("Congestion control", None, [r"congestion_control", r"cc_.*"]),
    ("Performance manager", None, [r"perfmgr.*", r"event_db_dump_file"]),
    ("Logging", None,
     [r"log_.*", r".*_log_.*", r"force_log_flush", r"accum_log_file",
      r"per_module_logging_file"]),
    ("Daemon, files and status socket", None,
     [r"daemon", r"cache_dir", r"socket_.*", r"fsync_high_avail_files", r"dump_files_dir",
      r"node_name_map_name",
      r"console.*", r"event_plugin_.*", r"babbling_port_policy", r"enable_quirks",
      r"exit_on_fatal"]),
]


def group_keys(keys):
    groups = [(t, intro, [re.compile(p + r"\Z") for p in pats], []) for t, intro, pats in GROUPS]
    other = []
    for k in keys:
        for _, _, pats, members in groups:
            if any(p.match(k["name"]) for p in pats):
                members.append(k)
                break
        else:
            other.append(k)
    out = [(t, intro, members) for t, intro, _, members in groups if members]
    if other:
        out.append(("Other keys", None, other))
    return out


# ---- roff ----

def esc(text):
    """Plain text as roff text: backslashes, control characters at line starts,
    and break points in long words (groff warns when it cannot break a line)."""
    text = text.replace("\\", "\\e")
    words = []
    for w in text.split(" "):
        if len(w) > 28:
            w = "\\:".join(w[i:i + 16] for i in range(0, len(w), 16))
        words.append(w)
    text = " ".join(words)
    lines = []
    for ln in text.split("\n"):
        if ln[:1] in (".", "'"):
            ln = "\\&" + ln
        lines.append(ln)
    return "\n".join(lines)


def lit(text):
    """A value shown literally: hyphens as minus signs too."""
    return esc(text).replace("-", "\\-")


def sentence(text):
    text = text.strip()
    return text if text[-1:] in (".", "!", "?") else text + "."


def type_text(k):
    t = k["type"]
    if t == "BOOL":
        return "Boolean"
    if t == "INT":
        return "Integer, %s to %s" % (lit(k["min"]), lit(k["max"]))
    if t == "U64":
        if k["max_v"] == 0:
            return "Unsigned 64-bit integer"
        return "Unsigned integer, %s to %s" % (lit(k["min"]), lit(k["max"]))
    return "String"


def default_text(k):
    d = k["default"]
    if k["type"] == "STR" and d == "(null)":
        return "unset"
    if d == "":
        return "empty"
    return "\\fB%s\\fR" % lit(d)


def key_entry(k):
    attrs = "%s, default %s" % (type_text(k), default_text(k))
    attrs += "; SIGHUP can change it" if k["reload"] else "; needs a restart"
    if not k["supported"]:
        attrs += "; \\fInot supported yet\\fR"
    return [".TP", ".B %s" % k["name"], esc(sentence(k["desc"])), ".br", attrs + "."]


def page(keys, version, sysconfdir):
    conf = "%s/ibsmd/ibsmd.conf" % sysconfdir.rstrip("/")
    nsup = sum(1 for k in keys if k["supported"])
    nrel = sum(1 for k in keys if k["reload"])
    L = []
    a = L.append
    a('.\\" ibsmd.conf(5): generated by man/gen-conf-man.py from lib/conf_keys.def.')
    a('.\\" Do not edit: change the key table, or the script, instead.')
    a('.TH IBSMD.CONF 5 "" "ibsmd %s" "File Formats Manual"' % esc(version))
    a('.\\" no hyphenation: names of keys and options stay whole (.EE restores HY)')
    a(".nr HY 0")
    a(".nh")
    a(".SH NAME")
    a("ibsmd.conf \\- configuration file of the ibsmd InfiniBand subnet manager")
    a(".SH SYNOPSIS")
    a(".I %s" % lit(conf))
    a(".SH DESCRIPTION")
    a(".BR ibsmd (8)")
    a("reads its configuration from the file named with")
    a(".BR \\-F ,")
    a("else from")
    a(".I %s" % lit(conf))
    a("when that file exists, else it runs on built-in defaults.")
    a("The format and the keys are OpenSM's:")
    a("an")
    a(".I opensm.conf")
    a("written by")
    a(".B opensm\\ \\-c")
    a("loads as it is, and")
    a(".B ibsmd \\-c")
    a(".I file")
    a("writes an annotated file holding every key with its default and description.")
    a(".PP")
    a("ibsmd knows all %d keys listed below." % len(keys))
    a("It honours %d of them; the others are accepted so that existing" % nsup)
    a("OpenSM configurations keep working, and each one set to anything but its")
    a("default draws one warning in the log naming it as not supported yet,")
    a("its file and line.")
    a("%d keys can change while ibsmd runs (see" % nrel)
    a(".BR RELOADING );")
    a("the others need a restart.")
    a(".SH FILE FORMAT")
    a("One setting per line:")
    a(".RS")
    a(".EX")
    a(".I key value")
    a(".EE")
    a(".RE")
    a(".PP")
    a("ibsmd reads the file as OpenSM 3.3 does:")
    a(".IP \\(bu 2")
    a(".B #")
    a("starts a comment anywhere on a line, so")
    a(".B sm_priority 15  # primary SM")
    a("sets 15 and no value can hold a")
    a(".BR # .")
    a(".IP \\(bu 2")
    a("The key is the first word of the line; the value is the rest of it, with blanks")
    a("(a CR of a CR LF line end too) removed at either end and then one pair of")
    a("double or single quotes around it.")
    a(".IP \\(bu 2")
    a("OpenSM's old name")
    a(".B dimn_ports_file")
    a("sets")
    a(".BR port_search_ordering_file .")
    a(".IP \\(bu 2")
    a("A key set twice takes the last value (ibsmd logs it).")
    a(".PP")
    a("Values by type:")
    a(".TP")
    a(".B Boolean")
    a(".B TRUE")
    a("is true; anything else is false, as in OpenSM:")
    a(".BR true ,")
    a(".B yes")
    a("or")
    a(".B 1")
    a("read as FALSE.")
    a("Any value but")
    a(".B TRUE")
    a("and")
    a(".B FALSE")
    a("draws a warning.")
    a(".TP")
    a(".B Integer")
    a("decimal, or hexadecimal with")
    a(".BR 0x ;")
    a("a leading")
    a(".B 0")
    a("means octal, as in C.")
    a("The value must lie in the range given for the key.")
    a(".TP")
    a(".B Unsigned 64-bit integer")
    a("as above, up to 0xffffffffffffffff: GUIDs, keys and prefixes.")
    a(".TP")
    a(".B String")
    a("the rest of the line;")
    a(".B (null)")
    a("means unset.")
    a(".PP")
    a("What OpenSM passes over does not stop ibsmd either: it is a warning,")
    a(".RS")
    a(".EX")
    a(".I file\\fB:\\fIline\\fB: \\fImessage")
    a(".EE")
    a(".RE")
    a(".PP")
    a("and ibsmd goes on.")
    a("Warnings are: an unknown key (named with the closest known key when one is")
    a("close, as in")
    a(".BR \"unknown key 'sm_priorty' (did you mean 'sm_priority'?)\" ),")
    a("a key without a value, a value that does not parse as the key's type, lies")
    a("outside its range or is not among its allowed words (the key then keeps its")
    a("default, as OpenSM does for")
    a(".BR lmc \", \" sm_priority \", \" part_enforce \" and \" console ;")
    a("an")
    a(".B m_key_protection_level")
    a("above 3 becomes 2, as in OpenSM),")
    a("a line longer than 4096 bytes (ignored), and a key ibsmd does not honour set")
    a("to anything but its default.")
    a("Only a file that cannot be read is an error.")
    a("With")
    a(".B strict_config TRUE")
    a("(or")
    a(".BR \\-\\-strict\\-config )")
    a("every warning is an error: ibsmd does not start, and a reload is refused.")
    a(".PP")
    a("Where ibsmd differs from OpenSM:")
    a(".IP \\(bu 2")
    a("OpenSM reads an integer up to the first character that is no digit")
    a(".RB ( 15abc \" is 15, \" abc \" is 0)\" ")
    a("and wraps values too large for the field; ibsmd takes the whole value or warns")
    a("and uses the key's default.")
    a("ibsmd's ranges follow what each key can mean: where OpenSM takes any value")
    a(".RB ( sweep_interval \" 100000, \" max_wire_smps \" 0)\" ")
    a("so does ibsmd.")
    a(".IP \\(bu 2")
    a(".B max_wire_smps 0")
    a("means unlimited, as in OpenSM; ibsmd keeps at most 1024 SMPs in flight (its")
    a("transaction identifiers).")
    a(".IP \\(bu 2")
    a("OpenSM says nothing of a boolean that is neither TRUE nor FALSE; ibsmd reads it")
    a("the same way and warns.")
    a(".IP \\(bu 2")
    a("OpenSM 3.3.23 reports a blank line that ends in CR LF as an unrecognized token;")
    a("ibsmd takes it as blank.")
    a(".IP \\(bu 2")
    a("The keys")
    a(".BR cache_dir \" to \" strict_config")
    a("at the end of the list are ibsmd's own; OpenSM warns about them")
    a(".RB ( \"Unrecognized token\" )")
    a("and goes on.")
    a(".B max_rate_enum")
    a("(written by OpenSM 3.3.24's opensm \\-c, a key of NVIDIA's OpenSM too)")
    a("is accepted and not honoured.")
    a(".SH CHECKING A CONFIGURATION")
    a(".B ibsmd \\-\\-check\\-config")
    a("(with")
    a(".B \\-F")
    a(".I file")
    a("and any other options) tells everything a start would, without starting:")
    a("the file's warnings, keys set to a non-default value that ibsmd does not")
    a("honour, names in")
    a(".B routing_engine")
    a("that are no installed engine, and the files the configuration names that")
    a("are missing or do not parse")
    a(".RB ( root_guid_file \", \" cn_guid_file \", \" io_guid_file \", \" guid_routing_order_file ,")
    a(".BR partition_config_file \", \" lfts_file \"; and \" qos_policy_file")
    a("with")
    a(".BR \"qos TRUE\" ,")
    a("parsed by the daemon's parser, each of its errors a warning naming its")
    a("file and line: a start goes on without a policy, see")
    a(".BR ibsmd\\-qos\\-policy (5)).")
    a("A partitions file that does not parse, and a")
    a(".B routing_engine")
    a("list left with no engine, are errors; a missing partitions file is not (OpenSM")
    a("runs with the default partition then); a GUID file that is missing or has bad")
    a("lines is a warning (the engine that reads it fails and the chain falls back).")
    a(".B port_prof_ignore_file")
    a("and")
    a(".B ids_guid_file")
    a("are checked to be there only: their lines are checked when the engine reads")
    a("them, each bad one failing the engine with")
    a(".IR file : line .")
    a("The files the SM reads after the start")
    a(".RB ( node_name_map_name \", \" per_module_logging_file \", \" prefix_routes_file ,")
    a(".BR sa_db_file )")
    a("are read by the same code a start uses, and each line it would log is a")
    a("warning after the configuration line that names the file, as in")
    a(".RS")
    a(".EX")
    a("warning: opensm.conf:4: prefix_routes_file: routes.conf:3: illegal GUID x: line skipped")
    a(".EE")
    a(".RE")
    a(".PP")
    a("None of them stops a start. A missing file at the key's default is silent,")
    a("as in OpenSM; a missing file the configuration names is a warning.")
    a("OpenSM keys that something else of ibsmd replaces")
    a(".RB ( console \", \" console_port \", \" event_plugin_name \", \" event_plugin_options ,")
    a(".BR event_db_dump_file )")
    a("are one warning each when set, naming what replaces them (ibsmctl, the status")
    a("socket's event stream); a start logs the same lines.")
    a(".PP")
    a("The output, stable for scripts: one line per finding, errors first,")
    a(".RS")
    a(".EX")
    a("error: \\fIfile\\fB:\\fIline\\fB: \\fImessage")
    a("warning: \\fIfile\\fB:\\fIline\\fB: \\fImessage")
    a(".EE")
    a(".RE")
    a(".PP")
    a("(without")
    a(".IB file : line :")
    a("for a value that did not come from the file), then one summary line")
    a(".RS")
    a(".EX")
    a("\\fIfile\\fB: \\fIN\\fB errors, \\fIM\\fB warnings: ibsmd would start")
    a(".EE")
    a(".RE")
    a(".PP")
    a("ending in")
    a(".BR \"ibsmd would not start\" ,")
    a("or")
    a(".B ibsmd would not start (strict_config)")
    a("when only")
    a(".B strict_config")
    a("turned the warnings into a refusal.")
    a("The exit status is 0 when ibsmd would start (warnings allowed), 1 when it")
    a("would not.")
    a(".SH ROUTING ENGINES")
    a("As in OpenSM, a name in")
    a(".B routing_engine")
    a("that is no installed engine is skipped with an error in the log, and")
    a(".B minhop")
    a("is tried after the engines named when they all fail, unless the list holds")
    a(".BR no_fallback .")
    a("The skipped names show in")
    a(".BR \"ibsmctl routing\" .")
    a("Unset, the chain is")
    a(".BR minhop,updn .")
    a(".SH PRECEDENCE")
    a("Built-in defaults, then the file, then command-line options:")
    a("an option such as")
    a(".B \\-p")
    a("or")
    a(".B \\-\\-sweep")
    a("beats the key it sets")
    a(".RB ( sm_priority ,")
    a(".BR sweep_interval )")
    a("in the file, also after a reload.")
    a("The")
    a(".B config")
    a("command of")
    a(".BR ibsmctl (1)")
    a("shows every key's value, default and where the value came from.")
    a(".SH RELOADING")
    a("On")
    a(".B SIGHUP")
    a('.RB ( "systemctl reload ibsmd" ,')
    a('.RB "or " "ibsmctl reload" )')
    a("ibsmd reads the file again into a new configuration (defaults, the file, then")
    a("the command-line options) and validates all of it before it touches the running")
    a("one.")
    a("Warnings are logged (and shown by")
    a(".BR \"ibsmctl reload\" )")
    a("and do not stop the reload, unless")
    a(".B strict_config")
    a("is TRUE in the new configuration.")
    a("If the file has an error (or a warning under")
    a(".BR strict_config ),")
    a("ibsmd logs each one and goes on running on the")
    a("configuration it has: nothing of the new file is applied.")
    a("Otherwise every key that SIGHUP can change takes its new value, while a key that")
    a("needs a restart keeps its running value and ibsmd logs")
    a(".RS")
    a(".EX")
    a(".I file\\fB:\\fIline\\fB: \\fIkey\\fB: needs a restart, keeping \\fIvalue")
    a(".EE")
    a(".RE")
    a(".PP")
    a("A heavy sweep follows, which writes changed port and switch parameters to the")
    a("fabric.")
    a(".B ibsmctl reload")
    a("answers with the keys that changed and those kept for a restart.")
    a(".SH KEYS")
    a("Each entry gives the key's meaning, then its type and range, its default and")
    a("two marks:")
    a(".TP")
    a(".B SIGHUP can change it")
    a("a reload applies a new value; otherwise the key")
    a('.BR "needs a restart" :')
    a("a reload keeps the running value (see")
    a(".BR RELOADING ).")
    a(".TP")
    a(".I not supported yet")
    a("ibsmd accepts the key, so that OpenSM configurations load, but does not act on")
    a("it: a value other than the default is ignored, with one warning in the log")
    a("naming the key, the file and the line.")
    a("Keys without this mark are honoured.")
    a(".PP")
    a("Keys are grouped by topic; within a group they are in the order")
    a(".B opensm\\ \\-c")
    a("writes them, ibsmd's own keys last.")
    for title, intro, members in group_keys(keys):
        a('.SS "%s"' % esc(title))
        if intro:
            a(esc(intro))
        for k in members:
            L.extend(key_entry(k))
    a(".SH FILES")
    a(".TP")
    a(".I %s" % lit(conf))
    a("the configuration file read when")
    a(".B \\-F")
    a("is not given.")
    a(".TP")
    a(".I /etc/opensm/opensm.conf")
    a("OpenSM's configuration, which")
    a(".B ibsmd \\-F")
    a("reads as it is.")
    a(".SH EXAMPLES")
    a("Start from the annotated defaults and check the result:")
    a(".PP")
    a(".RS")
    a(".EX")
    a("ibsmd \\-c /tmp/ibsmd.conf")
    a("$EDITOR /tmp/ibsmd.conf")
    a("ibsmd \\-F /tmp/ibsmd.conf \\-\\-check\\-config")
    a("install \\-m 644 /tmp/ibsmd.conf %s" % lit(conf))
    a("systemctl reload ibsmd")
    a(".EE")
    a(".RE")
    a(".PP")
    a("Run on an existing OpenSM configuration:")
    a(".PP")
    a(".RS")
    a(".EX")
    a("ibsmd \\-F /etc/opensm/opensm.conf \\-\\-check\\-config")
    a(".EE")
    a(".RE")
    a(".SH SEE ALSO")
    a(".BR ibsmd (8),")
    a(".BR ibsmctl (1),")
    a(".BR ibsmd\\-qos\\-policy (5),")
    a(".BR opensm (8)")
    return "\n".join(L) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(description="write ibsmd.conf(5) from conf_keys.def")
    ap.add_argument("--version", default="", help="ibsmd version for the page footer")
    ap.add_argument("--sysconfdir", default="/etc", help="where ibsmd/ibsmd.conf lives")
    ap.add_argument("def_file", metavar="CONF_KEYS_DEF")
    ap.add_argument("output", metavar="OUTPUT", help="the page to write ('-': stdout)")
    args = ap.parse_args(argv)
    try:
        keys = read_keys(args.def_file)
    except (OSError, DefError, ValueError) as e:
        print("gen-conf-man.py: %s" % e, file=sys.stderr)
        return 1
    text = page(keys, args.version, args.sysconfdir)
    if args.output == "-":
        sys.stdout.write(text)
        return 0
    d = os.path.dirname(args.output) or "."
    fd, tmp = tempfile.mkstemp(prefix=".gen-conf-man.", dir=d)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, args.output)
    except BaseException:
        os.unlink(tmp)
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
