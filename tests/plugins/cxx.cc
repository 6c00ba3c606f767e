// cxx.cc - a complete plugin written in C++, to prove the SDK headers and
// REFD_PLUGIN_DEFINE work from C++ (built and checked by tests/cxx.t).
// The game: seat 0 says {"type": "stop"} and the game is over.
#include <cstring>
#include <new>

#include <refd/mp.h>
#include <refd/plugin.h>

namespace {

const struct refd_host *H;

struct state {
	int over;
};

int
put(refd_ctx *ctx, refd_mpw *w)
{
	int rc = H->output(ctx, refd_mpw_data(w), refd_mpw_len(w));

	refd_mpw_destroy(w);
	return rc;
}

int
c_init(refd_ctx *, const struct refd_host *host, void **pdata)
{
	H = host;
	*pdata = nullptr;
	return REFD_OK;
}

int
c_describe(refd_ctx *ctx, void *)
{
	refd_mpw *w = refd_mpw_create();

	refd_mpw_map(w);
	refd_mpw_kstr(w, "summary", "stop");
	refd_mpw_end(w);
	return put(ctx, w);
}

int
c_content_load(refd_ctx *, void *, const uint8_t *, size_t, void **out)
{
	static int token;

	*out = &token;
	return REFD_OK;
}

void
c_content_free(void *, void *)
{
}

int
c_create(refd_ctx *ctx, void *, const void *, const uint8_t *, size_t,
    uint32_t, void **out)
{
	void *p = H->alloc(ctx, sizeof(state));

	if (p == nullptr)
		return REFD_ENOMEM;
	*out = new (p) state{0};
	return REFD_OK;
}

int
c_apply(refd_ctx *ctx, void *st, uint32_t seat, const uint8_t *cmd,
    size_t len)
{
	state *s = static_cast<state *>(st);
	refd_mpdoc *d = refd_mp_parse(cmd, len);
	bool stop = refd_mpv_streq(refd_mpv_get(refd_mp_root(d), "type"),
	    "stop") && refd_mpv_len(refd_mp_root(d)) == 1;
	refd_mpw *w;
	int rc;

	refd_mp_free(d);
	if (s->over || seat != 0 || !stop)
		return H->reject(ctx, REFD_EILLEGAL, "CXX-1",
		    "only seat 0 may stop");
	s->over = 1;
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "stopped");
	refd_mpw_end(w);
	rc = H->emit(ctx, REFD_SEAT_PUBLIC, refd_mpw_data(w), refd_mpw_len(w));
	refd_mpw_destroy(w);
	return rc;
}

int
c_legal(refd_ctx *ctx, const void *st, uint32_t seat)
{
	const state *s = static_cast<const state *>(st);
	refd_mpw *w = refd_mpw_create();

	refd_mpw_array(w);
	if (!s->over && seat == 0) {
		refd_mpw_map(w);
		refd_mpw_kmap(w, "cmd");
		refd_mpw_kstr(w, "type", "stop");
		refd_mpw_end(w);
		refd_mpw_kstr(w, "label", "Stop");
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	return put(ctx, w);
}

int
c_pending(refd_ctx *, const void *st, uint64_t *seats)
{
	*seats = static_cast<const state *>(st)->over ? 0 : 1;
	return REFD_OK;
}

int
c_view(refd_ctx *ctx, const void *st, int32_t)
{
	refd_mpw *w = refd_mpw_create();

	refd_mpw_map(w);
	refd_mpw_kbool(w, "over", static_cast<const state *>(st)->over);
	refd_mpw_end(w);
	return put(ctx, w);
}

int
c_result(refd_ctx *ctx, const void *st)
{
	refd_mpw *w;
	int rc;

	if (!static_cast<const state *>(st)->over)
		return 0;
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_karray(w, "winners");
	refd_mpw_int(w, 0);
	refd_mpw_end(w);
	refd_mpw_kstr(w, "reason", "stopped");
	refd_mpw_end(w);
	rc = put(ctx, w);
	return rc == REFD_OK ? 1 : rc;
}

int
c_serialize(refd_ctx *ctx, const void *st)
{
	refd_mpw *w = refd_mpw_create();

	refd_mpw_int(w, static_cast<const state *>(st)->over);
	return put(ctx, w);
}

int
c_restore(refd_ctx *ctx, void *, const void *, const uint8_t *b, size_t len,
    void **out)
{
	refd_mpdoc *d = refd_mp_parse(b, len);
	int64_t over = -1;
	void *p;

	refd_mpv_int(refd_mp_root(d), &over);
	refd_mp_free(d);
	if (over != 0 && over != 1)
		return H->reject(ctx, REFD_EARG, nullptr, "state is damaged");
	if ((p = H->alloc(ctx, sizeof(state))) == nullptr)
		return REFD_ENOMEM;
	*out = new (p) state{static_cast<int>(over)};
	return REFD_OK;
}

void
c_destroy(refd_ctx *ctx, void *st)
{
	H->free(ctx, st);
}

const struct refd_plugin_ops ops = {
	sizeof(struct refd_plugin_ops), c_init, nullptr, c_describe,
	c_content_load, c_content_free, c_create, c_apply, c_legal, c_pending,
	c_view, c_result, c_serialize, c_restore, c_destroy, nullptr,
};

} // namespace

REFD_PLUGIN_DEFINE("cxx", "1.0.0", "a plugin in C++", 1, 2, 0, &ops);
