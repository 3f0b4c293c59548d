/*
 * view.h: how the SA record families look at the fabric model: which
 * ports and nodes count as known while sweeps come and go, which ones a
 * requester may see (partitions), and the port that owns a LID without
 * walking the fabric (a LID index kept by the SA, rebuilt after heavy
 * sweeps, the only time LIDs and nodes change).
 */
#ifndef IBSM_SA_VIEW_H
#define IBSM_SA_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "model/fabric.h"
#include "sa/sa_int.h"

/* what one request sees of the model, fixed when it starts */
struct sa_view {
	const struct sa_req *q;
	const struct ibsm_fabric *f;
	uint32_t floor; /* oldest sweep generation whose observations still hold */
};

/* start looking at the model for q */
void sa_view_init(struct sa_view *v, const struct sa_req *q);
/* the node was found by the last complete discovery or the running one */
bool sa_view_node(const struct sa_view *v, const struct ibsm_node *n);
/* add(v, r, port) for the ports of n the view shows (switches from port 0,
 * CAs from 1); only: one port number, or -1 for all */
void sa_view_ports(const struct sa_view *v, struct sa_resp *r, const struct ibsm_node *n, int only,
		   void (*add)(const struct sa_view *, struct sa_resp *, const struct ibsm_port *));
/* sa_view_ports over every node (lid -1), or over the node owning lid: every
 * port of a switch (or port only), the end port itself; none if no port has lid */
void sa_view_select(const struct sa_view *v, struct sa_resp *r, int lid, int only,
		    void (*add)(const struct sa_view *, struct sa_resp *,
				const struct ibsm_port *));
/* likewise the port (a port never read has no LID: every family checks it) */
bool sa_view_port(const struct sa_view *v, const struct ibsm_port *p);
/* the requester may see p: trusted, p on its own node, or a partition shared */
bool sa_view_visible(const struct sa_view *v, const struct ibsm_port *p);
/* a switch found as sa_view_node says (a new one has no LID until configured) */
bool sa_view_switch(const struct sa_view *v, const struct ibsm_node *n);

/* the port carrying the LID p is reached by: a switch's port 0, else p */
const struct ibsm_port *sa_lid_port(const struct ibsm_port *p);
/* lid is within the LMC range of lp (a port carrying LIDs) */
bool sa_lid_owned(const struct ibsm_port *lp, uint16_t lid);
/* the port owning lid (switch port 0 or an end port), NULL if none */
struct ibsm_port *sa_port_by_lid(struct ibsm_sm *sm, uint16_t lid);

/* free the view's state: the LID index (sa_del); NULL is ignored */
void sa_view_del(struct sa_view_state *s);

#endif
