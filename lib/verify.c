/* stub, replaced soon */
#include "config.h"
#include "verify.h"

/* placeholder until the verifier lands: accepts everything */
int verify_routes(const struct ibsm_topo *t, const struct ibsm_routes *r,
		  const struct verify_opts *o, struct verify_report *rep)
{
	(void)t;
	(void)r;
	(void)o;
	*rep = (struct verify_report){.ok = true, .credit_loop_vl = -1};
	return 0;
}

json_t *verify_report_json(const struct verify_report *rep)
{
	return json_pack("{s:b}", "ok", rep->ok);
}
