/* SPDX-License-Identifier: MIT */
/*
 * A run's events (controller/run/pass.h): each an Event object and a log
 * line, and what a pass needs to say each only once (the previous status'
 * messages, the ring of what this process announced).
 */
#include "controller/run/pass.h"

#include "core/jsonobj.h"
#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void br_pass_emit(struct br_controller *c, const struct br_ref *ref, const struct br_event *e)
{
	pthread_mutex_lock(&c->mu);
	unsigned seq = c->event_seq++;
	pthread_mutex_unlock(&c->mu);
	json_t *ev = br_event_manifest(ref, e, c->ops.now(c->ops.arg), seq);
	struct kube_error err = KUBE_ERROR_INIT;
	char eb[512];
	if (ev && c->ops.create(c->ops.arg, &br_res_events, ref->ns, ev, &err) != 0) {
		br_metrics_api_error(c->metrics);
		sb_warn("Failed to record an event", "run=%s/%s reason=%s error=\"%s\"", ref->ns,
			ref->name, e->reason, kube_error_str(&err, eb, sizeof(eb)));
	}
	json_decref(ev);
	sb_log(e->warning ? SB_LOG_WARN : SB_LOG_INFO, e->message, "run=%s/%s reason=%s", ref->ns,
	       ref->name, e->reason);
}

void br_pass_emitf(struct br_controller *c, const struct br_ref *ref, bool warning,
		   const char *reason, const char *fmt, ...)
{
	struct br_event e;
	va_list ap;
	memset(&e, 0, sizeof(e));
	e.warning = warning;
	snprintf(e.reason, sizeof(e.reason), "%s", reason);
	va_start(ap, fmt);
	vsnprintf(e.message, sizeof(e.message), fmt, ap);
	va_end(ap);
	br_pass_emit(c, ref, &e);
}

/* True when the previous status already says msg (so the event was sent). */
bool br_pass_prev_message(const json_t *prev, const char *msg)
{
	const char *m = jstr(prev, "message");
	return m && strstr(m, msg);
}

bool br_pass_prev_class_message(const json_t *prev, const char *cls, const char *msg)
{
	size_t i;
	const json_t *pc;
	json_array_foreach(json_object_get(prev, "classes"), i, pc)
	{
		const char *n = jstr(pc, "name"), *m = jstr(pc, "message");
		if (n && !strcmp(n, cls) && m && !strcmp(m, msg))
			return true;
	}
	return false;
}

/*
 * Whether this process announces run uid reaching phase for the first
 * time: the cache can still show the old phase for a moment after the
 * status write, and the event must not be sent twice.
 */
bool br_pass_first_announcement(struct br_controller *c, const char *uid, const char *what)
{
	char key[128];
	bool first = true;
	/* what may be long (a message): its hash keeps keys short */
	unsigned long h = 5381;
	for (const char *p = what; *p; p++)
		h = h * 33 + (unsigned char)*p;
	snprintf(key, sizeof(key), "%s/%lx", uid, h);
	pthread_mutex_lock(&c->mu);
	for (size_t i = 0; i < BR_ANNOUNCED; i++)
		if (!strcmp(c->announced[i], key))
			first = false;
	if (first) {
		snprintf(c->announced[c->nannounced % BR_ANNOUNCED], sizeof(c->announced[0]), "%s",
			 key);
		c->nannounced++;
	}
	pthread_mutex_unlock(&c->mu);
	return first;
}
