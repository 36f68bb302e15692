/* op_info.c - gd_info (octave/gd_info.m), through __gd__('info'): the
 * device gd would use, or why there is none, and the live gdArrays. Never
 * raises for want of a GPU. */
#include "gd_mex.h"

#include <stdio.h>

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
                            "memory_total", "memory_free", "memory_pool", "driver_version",
                            "runtime_version", "memory_limit", "cpu_threads",
                            "gdarrays", "gdarray_bytes"};
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
    plhs[0] = o;
}
