/* probe.c: the line builder methods' probe reports use (ferry_info's "usable here, and why"). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "method.h"

void MPIDU_probe_line(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    va_list ap;

    /* A full report drops the later (detail) lines, never the summary. */
    if (used + 1 >= len)
        return;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
    used = strlen(buf);
    if (used + 1 < len)
        strcat(buf, "\n");
}
