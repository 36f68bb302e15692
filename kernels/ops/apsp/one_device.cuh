/* ops/apsp/one_device.cuh - the one-device run: the rounds, P, a second counting run where a cycle weighs 0.
 * Part of apsp.cu, which includes it inside its anonymous namespace, in
 * its place among the others (each part uses the ones before it). */
/* The one-device run's rounds: the lengths (with fw, P's tags); without a
 * cycle of weight 0, then P from them (the chain; squaring: one witness
 * product); with one (P may go round it), a second run that tracks P and
 * breaks ties by the paths' edge counts. *fallback: the chain gave way to
 * the last edges. */
static void gpu_rounds(gd_call &c, apsp_run &r, bool fw, const gd_matrix &W, gd_out &Dout,
                       gd_out *Pout, gd_class pcls, int64_t *cycle_vertex, bool *fallback)
{
    for (int run = 0; run < 2 && c.ok(); ++run) {
        c.begin(GD_PHASE_PREP, r.st);
        if (run == 0) {
            c.check(r.prepare(W));
            r.chain = r.wp && fw;
        }
        if (c.ok()) c.check(r.fill(cycle_vertex));
        c.end(GD_PHASE_PREP, r.st);
        c.begin(GD_PHASE_KERNEL, r.st);
        if (c.ok() && fw) c.check(r.cls == GD_SINGLE ? r.fw<float>() : r.fw<double>());
        if (c.ok() && !fw)
            c.check(r.cls == GD_SINGLE ? r.squaring<float>() : r.squaring<double>());
        c.end(GD_PHASE_KERNEL, r.st);
        /* the host results made, and their pages touched, while the
         * rounds run (a second run keeps them) */
        if (c.ok() && run == 0) c.check(r.host_results(Dout, Pout, pcls));
        if (c.ok()) c.check(r.check(cycle_vertex));
        bool zero = false;
        if (!c.ok() || !r.wp || r.hops || !c.check(r.zero_cycle(&zero))) break;
        if (!zero) {
            c.begin(GD_PHASE_KERNEL, r.st);
            if (r.chain)
                c.check(r.cls == GD_SINGLE ? r.chain_pass<float>(fallback)
                                           : r.chain_pass<double>(fallback));
            else
                c.check(r.cls == GD_SINGLE ? r.last_edge_pass<float>() : r.last_edge_pass<double>());
            c.end(GD_PHASE_KERNEL, r.st);
            break;
        }
        r.hops = r.track = true;
        r.chain = false;
    }
}

gd_status run_gpu(bool fw, const gd_matrix &W, gd_out Dout, const gd_out *P0, gd_class pcls,
                  int64_t *cycle_vertex, gd_timing *t)
{
    gd_call c(t, fw ? "fw" : "squaring");
    if (!c.ok()) return c.finish();
    apsp_run r;
    memset(&r, 0, sizeof r);
    r.al = c.allocs();
    r.call = &c;
    r.cls = r.wcls = W.cls; /* an integer W: its rounds' class from prepare */
    r.es = gd_class_bytes(W.cls);
    r.n = W.rows;
    r.np = gd_round_up(W.rows, FB);
    r.wp = P0 != NULL;
    r.st = gd_stream();
    gd_out Pout = {};
    if (P0) Pout = *P0;
    bool fallback = false;
    gpu_rounds(c, r, fw, W, Dout, P0 ? &Pout : NULL, pcls, cycle_vertex, &fallback);
    int repaired = 0;
    if (c.ok() && r.wp) {
        c.begin(GD_PHASE_KERNEL, r.st);
        c.check(r.trees(0, -1, &repaired));
        c.end(GD_PHASE_KERNEL, r.st);
    }
    if (c.ok()) c.check(r.results(Dout, P0 ? &Pout : NULL, pcls));
    if (c.wait(r.st, "the shortest paths"))
        r.kernel_name(t->kernel, sizeof t->kernel,
                      r.hops       ? (repaired ? "edge counts, P repaired" : "edge counts")
                      : fallback   ? (repaired ? "P from the last edges, repaired"
                                               : "P from the last edges")
                      : repaired   ? "P repaired"
                                   : "");
    if (!c.ok()) {
        /* a kept result made before the failure goes with the call */
        if (Dout.device) *Dout.device = NULL;
        if (P0 && P0->device) *P0->device = NULL;
    }
    r.settle();
    const gd_status s = c.finish();
    if (!s) t->kept = Dout.device != NULL;
    return s;
}

