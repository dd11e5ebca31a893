// SPDX-License-Identifier: MIT
#include "keys.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include "log.h"
#include "transport.h"
#include "yamlcfg.h"

/*
 * Set by a SIGHUP handler on the main thread, taken by the handler thread:
 * an atomic, not a volatile, so the two threads never race on it.
 */
static atomic_int reload_requested;
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "a signal handler may set only a lock-free atomic");

int rb_keys_generate(struct rb_keypair *k)
{
	if (!zmq_has("curve"))
		return -ENOTSUP;
	return zmq_curve_keypair(k->pub, k->sec) == 0 ? 0 : -errno;
}

int rb_keys_write(const char *dir, const char *name, const struct rb_keypair *k)
{
	char path[4096];
	FILE *f;
	int fd;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/%s.key", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -errno;
	}
	fprintf(f, "# rackbench CURVE key pair: keep secret\npublic-key = %s\nsecret-key = %s\n",
		k->pub, k->sec);
	if (fclose(f))
		return -errno;
	snprintf(path, sizeof(path), "%s/%s.pub", dir, name);
	f = fopen(path, "wx");
	if (!f)
		return -errno;
	fprintf(f, "# rackbench CURVE public key\npublic-key = %s\n", k->pub);
	return fclose(f) ? -errno : 0;
}

bool rb_keys_is_z85(const char *s)
{
	uint8_t raw[32];

	return strlen(s) == 40 && zmq_z85_decode(raw, s) != NULL;
}

static bool z85_key(const char *s)
{
	return rb_keys_is_z85(s);
}

int rb_keys_read(const char *file, bool need_secret, struct rb_keypair *k, char *err, size_t errlen)
{
	char line[512];
	unsigned n = 0;
	int fd = rb_open_input(file);
	FILE *f = fd >= 0 ? fdopen(fd, "re") : NULL;

	memset(k, 0, sizeof(*k));
	if (!f) {
		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, "cannot read key file '%s': %s", file,
			 rb_input_error(fd >= 0 ? -ENOMEM : fd));
		return fd >= 0 ? -ENOMEM : fd;
	}
	while (fgets(line, sizeof(line), f)) {
		char key[64], val[128];

		n++;
		if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0')
			continue;
		if (sscanf(line, " %63[a-z-] = %127s", key, val) != 2 || !z85_key(val) ||
		    (strcmp(key, "public-key") && strcmp(key, "secret-key"))) {
			snprintf(err, errlen,
				 "%s:%u: expected 'public-key = KEY' or 'secret-key = KEY' "
				 "(40 Z85 characters)",
				 file, n);
			fclose(f);
			return -EINVAL;
		}
		snprintf(!strcmp(key, "public-key") ? k->pub : k->sec, 41, "%s", val);
	}
	fclose(f);
	if (!k->pub[0] || (need_secret && !k->sec[0])) {
		snprintf(err, errlen, "%s: %s", file,
			 k->pub[0] ? "holds no secret-key: give the key pair (.key), not the .pub"
				   : "holds no public-key");
		return -EINVAL;
	}
	return 0;
}

/* ---- the ZAP handler ---- */

struct entry {
	char name[64];
	uint8_t key[32];
};

struct rb_zap {
	char file[4096], admin_file[4096]; /* admin_file "": no admin list */
	pthread_t th;
	atomic_bool alive, ready, stop;
	int bind_err;
	struct entry *list, *admins;
	size_t n, nadmins;
	long die_after; /* test hook: RB_TEST_ZAP_DIE_AFTER */
	int admin_log;	/* where an admin key's refusal is said: a file descriptor, or -1 */
};

/* what: "agent" or "admin", for the errors. */
static int load_list(const char *file, const char *what, struct entry **ret, size_t *ret_n,
		     char *err, size_t errlen)
{
	char line[512];
	unsigned lineno = 0;
	struct entry *v = NULL;
	size_t n = 0;
	int fd = rb_open_input(file);
	FILE *f = fd >= 0 ? fdopen(fd, "re") : NULL;

	if (!f) {
		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, "cannot read %s allow-list '%s': %s", what, file,
			 rb_input_error(fd >= 0 ? -ENOMEM : fd));
		return fd >= 0 ? -ENOMEM : fd;
	}
	while (fgets(line, sizeof(line), f)) {
		char name[64], key[128];
		struct entry *nv;

		lineno++;
		if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0')
			continue;
		if (sscanf(line, "%63s %127s", name, key) != 2 || !z85_key(key)) {
			snprintf(err, errlen,
				 "%s:%u: expected '%s-NAME PUBLIC-KEY' (40 Z85 "
				 "characters)",
				 file, lineno, !strcmp(what, "admin") ? "ADMIN" : "AGENT");
			free(v);
			fclose(f);
			return -EINVAL;
		}
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv) {
			free(v);
			fclose(f);
			return -ENOMEM;
		}
		v = nv;
		snprintf(v[n].name, sizeof(v[n].name), "%s", name);
		zmq_z85_decode(v[n].key, key);
		n++;
	}
	fclose(f);
	*ret = v;
	*ret_n = n;
	return 0;
}

static void send_str(void *s, const char *str, bool more)
{
	zmq_send(s, str, strlen(str), more ? ZMQ_SNDMORE : 0);
}

/* A list read again (SIGHUP): the new one, or the old one kept and the error said. */
static void reload(const char *file, const char *what, struct entry **list, size_t *n)
{
	struct entry *v;
	size_t nv;
	char err[512];

	if (load_list(file, what, &v, &nv, err, sizeof(err)) == 0) {
		free(*list);
		*list = v;
		*n = nv;
		rb_info("%s allow-list reloaded: %zu key(s)", what, nv);
	} else {
		rb_err("keeping the old %s allow-list: %s", what, err);
	}
}

static void *zap_main(void *arg)
{
	struct rb_zap *z = arg;
	void *s = zmq_socket(rb_tx_context(), ZMQ_REP);
	long handled = 0;

	if (!s || zmq_bind(s, "inproc://zeromq.zap.01") != 0) {
		z->bind_err = errno ? errno : EIO;
		atomic_store(&z->ready, true);
		atomic_store(&z->alive, false);
		if (s)
			zmq_close(s);
		return NULL;
	}
	atomic_store(&z->ready, true);
	while (!atomic_load(&z->stop)) {
		zmq_pollitem_t it = { .socket = s, .events = ZMQ_POLLIN };
		char frames[7][256];
		size_t lens[7];
		int more = 1, nf = 0;
		size_t ms = sizeof(more);

		if (atomic_exchange(&reload_requested, 0)) {
			reload(z->file, "agent", &z->list, &z->n);
			if (z->admin_file[0])
				reload(z->admin_file, "admin", &z->admins, &z->nadmins);
		}
		if (zmq_poll(&it, 1, 200) <= 0)
			continue;
		while (more && nf < 7) {
			int r = zmq_recv(s, frames[nf], sizeof(frames[nf]) - 1, 0);

			if (r < 0)
				break;
			lens[nf] =
				(size_t)r < sizeof(frames[nf]) ? (size_t)r : sizeof(frames[nf]) - 1;
			frames[nf][lens[nf]] = '\0';
			zmq_getsockopt(s, ZMQ_RCVMORE, &more, &ms);
			nf++;
		}
		while (more) { /* drain anything beyond the 7 frames we read */
			char junk[256];

			zmq_recv(s, junk, sizeof(junk), 0);
			zmq_getsockopt(s, ZMQ_RCVMORE, &more, &ms);
		}
		if (z->die_after && ++handled > z->die_after) {
			rb_err("test hook: the ZAP handler ends now");
			break;
		}
		/* version, request id, domain, address, identity, mechanism, key */
		const char *status = "400", *text = "key not on the allow-list", *user = "";
		char z85[41] = "?";
		/* the admin endpoint's keys are the admin list's, and only those */
		bool admin = nf > 2 && !strcmp(frames[2], RB_ZAP_DOMAIN_ADMIN);
		const struct entry *list = admin ? z->admins : z->list;
		size_t nlist = admin ? z->nadmins : z->n;

		if (nf == 7 && !strcmp(frames[5], "CURVE") && lens[6] == 32) {
			zmq_z85_encode(z85, (const uint8_t *)frames[6], 32);
			for (size_t i = 0; i < nlist; i++)
				if (!memcmp(list[i].key, frames[6], 32)) {
					status = "200";
					text = "OK";
					user = list[i].name;
					break;
				}
		} else {
			text = "CURVE required";
		}
		if (strcmp(status, "200") && admin && z->admin_log >= 0)
			rb_log_fd(z->admin_log, RB_LOG_WARN,
				  "refused an admin connection from %s: key %s is not on the admin "
				  "allow-list",
				  nf > 3 ? frames[3] : "?", z85);
		else if (strcmp(status, "200"))
			rb_warn("refused a connection from %s: key %s is not on the %s allow-list",
				nf > 3 ? frames[3] : "?", z85, admin ? "admin" : "agent");
		send_str(s, "1.0", true);
		zmq_send(s, frames[1], nf > 1 ? lens[1] : 0, ZMQ_SNDMORE);
		send_str(s, status, true);
		send_str(s, text, true);
		send_str(s, user, true);
		zmq_send(s, "", 0, 0);
	}
	zmq_close(s);
	atomic_store(&z->alive, false);
	return NULL;
}

struct rb_zap *rb_zap_start(const char *allowlist, char *err, size_t errlen)
{
	return rb_zap_start_admin(allowlist, NULL, -1, err, errlen);
}

struct rb_zap *rb_zap_start_admin(const char *allowlist, const char *admins, int admin_log,
				  char *err, size_t errlen)
{
	struct rb_zap *z = calloc(1, sizeof(*z));
	const char *hook = getenv("RB_TEST_ZAP_DIE_AFTER");

	if (!z)
		return NULL;
	z->admin_log = admin_log;
	snprintf(z->file, sizeof(z->file), "%s", allowlist);
	if (load_list(allowlist, "agent", &z->list, &z->n, err, errlen)) {
		free(z);
		return NULL;
	}
	if (admins) {
		snprintf(z->admin_file, sizeof(z->admin_file), "%s", admins);
		if (load_list(admins, "admin", &z->admins, &z->nadmins, err, errlen)) {
			free(z->list);
			free(z);
			return NULL;
		}
	}
	z->die_after = hook ? strtol(hook, NULL, 10) : 0;
	/* the handler thread owns list and n from its start (a SIGHUP reloads them there) */
	size_t nkeys = z->n, nadmins = z->nadmins;

	rb_tx_context(); /* made here, before the thread can race to make it */
	atomic_store(&z->alive, true);
	if (pthread_create(&z->th, NULL, zap_main, z)) {
		snprintf(err, errlen, "cannot start the ZAP handler thread");
		free(z->list);
		free(z->admins);
		free(z);
		return NULL;
	}
	while (!atomic_load(&z->ready))
		usleep(1000);
	if (z->bind_err) {
		snprintf(err, errlen, "cannot bind the ZAP handler: %s", strerror(z->bind_err));
		pthread_join(z->th, NULL);
		free(z->list);
		free(z->admins);
		free(z);
		return NULL;
	}
	rb_info("agent allow-list '%s': %zu key(s)", allowlist, nkeys);
	if (admins)
		rb_info("admin allow-list '%s': %zu key(s)", admins, nadmins);
	return z;
}

bool rb_zap_alive(const struct rb_zap *z)
{
	return atomic_load(&((struct rb_zap *)z)->alive);
}

void rb_zap_reload(void)
{
	atomic_store(&reload_requested, 1);
}

void rb_zap_stop(struct rb_zap *z)
{
	if (!z)
		return;
	atomic_store(&z->stop, true);
	pthread_join(z->th, NULL);
	free(z->list);
	free(z->admins);
	free(z);
}
