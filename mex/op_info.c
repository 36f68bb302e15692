/* op_info.c - gd_info (octave/gd_info.m), through __gd__('info'): the
 * device gd would use, or why there is none, and the live gdArrays. Never
 * raises for want of a GPU. */
#include "gd_mex.h"

#include <stdio.h>
#include <stdlib.h>

void gd_op_info(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)prhs;
    if (nrhs > 0) gd_mex_error("gd_info", "gd:input", "takes no arguments");
    if (nlhs > 1) gd_mex_error("gd_info", "gd:input", "too many outputs");
    gd_device_info d;
    gd_status s = gd_device_query(&d);
    if (s) gd_mex_fail("gd_info", s);

    const char *fields[] = {"available", "reason", "name", "compute_capability",
                            "sms", "clock_mhz", "memory_clock_mhz", "bus_width",
                            "memory_total", "memory_free", "memory_pool", "memory_held", "driver_version",
                            "runtime_version", "memory_limit", "cpu_threads",
                            "gdarrays", "gdarray_bytes", "mpi", "nccl"};
    const int nf = sizeof fields / sizeof fields[0];
    mxArray *o = mxCreateStructMatrix(1, 1, nf, fields);
    char buf[32];
    mxSetField(o, 0, "available", mxCreateLogicalScalar(d.available != 0));
    mxSetField(o, 0, "reason", mxCreateString(d.reason));
    mxSetField(o, 0, "name", mxCreateString(d.name));
    snprintf(buf, sizeof buf, d.available ? "%d.%d" : "", d.cc_major, d.cc_minor);
    mxSetField(o, 0, "compute_capability", mxCreateString(buf));
    mxSetField(o, 0, "sms", mxCreateDoubleScalar(d.sms));
    mxSetField(o, 0, "clock_mhz", mxCreateDoubleScalar(d.clock_mhz));
    mxSetField(o, 0, "memory_clock_mhz", mxCreateDoubleScalar(d.mem_clock_mhz));
    mxSetField(o, 0, "bus_width", mxCreateDoubleScalar(d.bus_width));
    mxSetField(o, 0, "memory_total", mxCreateDoubleScalar((double)d.mem_total));
    mxSetField(o, 0, "memory_free", mxCreateDoubleScalar((double)d.mem_free));
    mxSetField(o, 0, "memory_pool", mxCreateDoubleScalar((double)d.mem_pool));
    mxSetField(o, 0, "memory_held", mxCreateDoubleScalar((double)d.mem_held));
    snprintf(buf, sizeof buf, d.driver_version ? "%d.%d" : "none",
             d.driver_version / 1000, d.driver_version % 1000 / 10);
    mxSetField(o, 0, "driver_version", mxCreateString(buf));
    snprintf(buf, sizeof buf, d.runtime_version ? "%d.%d" : "none", d.runtime_version / 1000,
             d.runtime_version % 1000 / 10);
    mxSetField(o, 0, "runtime_version", mxCreateString(buf));
    mxSetField(o, 0, "memory_limit",
               d.mem_limit >= 0 ? mxCreateDoubleScalar((double)d.mem_limit)
                                : mxCreateDoubleMatrix(0, 0, mxREAL));
    mxSetField(o, 0, "cpu_threads", mxCreateDoubleScalar(gd_cpu_threads()));
    double count, bytes;
    gd_reg_stats(&count, &bytes);
    mxSetField(o, 0, "gdarrays", mxCreateDoubleScalar(count));
    mxSetField(o, 0, "gdarray_bytes", mxCreateDoubleScalar(bytes));
    /* the engines of many hosts, looked for (loaded at run time) */
    char mpi[224];
    if (gd_mpi_size() > 1)
        snprintf(mpi, sizeof mpi, "%s; rank %d of %d", gd_mpi_found(), gd_mpi_rank() + 1,
                 gd_mpi_size());
    else
        snprintf(mpi, sizeof mpi, "%s", gd_mpi_found());
    mxSetField(o, 0, "mpi", mxCreateString(mpi));
    mxSetField(o, 0, "nccl", mxCreateString(gd_nccl_found()));

    /* every device gd sees, and which ones a call takes by default */
    const int nd = d.available ? gd_device_count() : 0;
    gd_devices def;
    int defaults_ok = !gd_default_devices(&def);
    const char *dfields[] = {"index", "name", "compute_capability", "sms", "memory_total",
                             "memory_free", "memory_held", "pci", "peers", "used"};
    mxArray *devs = mxCreateStructMatrix(nd ? 1 : 0, (mwSize)nd, 10, dfields);
    for (int i = 0; i < nd; ++i) {
        gd_device_info e;
        if (gd_device_query_at(i, &e)) gd_mex_fail("gd_info", GD_ERR_CUDA);
        mxSetField(devs, i, "index", mxCreateDoubleScalar(i + 1));
        mxSetField(devs, i, "name", mxCreateString(e.name));
        snprintf(buf, sizeof buf, e.available ? "%d.%d" : "", e.cc_major, e.cc_minor);
        mxSetField(devs, i, "compute_capability", mxCreateString(buf));
        mxSetField(devs, i, "sms", mxCreateDoubleScalar(e.sms));
        mxSetField(devs, i, "memory_total", mxCreateDoubleScalar((double)e.mem_total));
        mxSetField(devs, i, "memory_free", mxCreateDoubleScalar((double)e.mem_free));
        mxSetField(devs, i, "memory_held", mxCreateDoubleScalar((double)e.mem_held));
        mxSetField(devs, i, "pci", mxCreateString(e.pci));
        int np = 0;
        for (int j = 0; j < nd; ++j) np += (e.peer >> j) & 1;
        mxArray *peers = mxCreateDoubleMatrix(1, (mwSize)np, mxREAL);
        double *pp = mxGetPr(peers);
        for (int j = 0; j < nd; ++j)
            if ((e.peer >> j) & 1) *pp++ = j + 1;
        mxSetField(devs, i, "peers", peers);
        int used = defaults_ok && def.n == 0;
        for (int j = 0; defaults_ok && j < def.n; ++j) used |= def.idx[j] == i;
        mxSetField(devs, i, "used", mxCreateLogicalScalar(used != 0));
    }
    mxAddField(o, "devices");
    mxSetField(o, 0, "devices", devs);
    const char *env = gd_setting_text(GD_SET_DEVICES);
    mxAddField(o, "devices_default");
    mxSetField(o, 0, "devices_default", mxCreateString(env ? env : "all"));
    plhs[0] = o;
}
