#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numconv.h"

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

size_t ev_scan_decimal(const char *s, size_t len, int allow_plus)
{
    size_t i = 0, digits = 0;
    if (i < len && (s[i] == '-' || (allow_plus && s[i] == '+'))) i++;
    while (i < len && is_digit(s[i])) i++, digits++;
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && is_digit(s[i])) i++, digits++;
    }
    if (!digits) return 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < len && (s[j] == '+' || s[j] == '-')) j++;
        size_t exp_digits = 0;
        while (j < len && is_digit(s[j])) j++, exp_digits++;
        /* "1e" alone: the number ends before the 'e', as in strtod. */
        if (exp_digits) i = j;
    }
    return i;
}

/*
 * Copy the token into a NUL-terminated buffer whose decimal point is the
 * current locale's, so that strtod/strtof read it as a C-locale number.
 */
static char *localize(const char *s, size_t len, char *stack, size_t stack_sz)
{
    const char *dp = localeconv()->decimal_point;
    if (!dp || !*dp) dp = ".";
    const size_t dp_len = strlen(dp);
    const size_t need = len * dp_len + 1;
    char *buf = need <= stack_sz ? stack : malloc(need);
    if (!buf) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '.') {
            memcpy(buf + o, dp, dp_len);
            o += dp_len;
        } else {
            buf[o++] = s[i];
        }
    }
    buf[o] = '\0';
    return buf;
}

static int convert(const char *s, size_t len, double *d, float *f)
{
    if (!s || !len || ev_scan_decimal(s, len, 1) != len) return -EINVAL;
    char stack[128];
    char *buf = localize(s, len, stack, sizeof(stack));
    if (!buf) return -ENOMEM;
    char *end = NULL;
    int err = 0;
    errno = 0;
    if (d) {
        *d = strtod(buf, &end);
        if (isinf(*d)) err = -ERANGE;
    } else {
        *f = strtof(buf, &end);
        if (isinf(*f)) err = -ERANGE;
    }
    if (!err && (end == buf || *end != '\0')) err = -EINVAL;
    if (buf != stack) free(buf);
    return err;
}

int ev_parse_double(const char *s, size_t len, double *out)
{
    return convert(s, len, out, NULL);
}

int ev_parse_float(const char *s, size_t len, float *out)
{
    return convert(s, len, NULL, out);
}

int ev_parse_int(const char *s, size_t len, int *out)
{
    size_t i = 0;
    int neg = 0;
    if (i < len && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    if (i == len) return -EINVAL;
    long long v = 0;
    for (; i < len; i++) {
        if (!is_digit(s[i])) return -EINVAL;
        v = v * 10 + (s[i] - '0');
        if (v > (long long)INT_MAX + 1) return -EINVAL;
    }
    if (neg) v = -v;
    if (v < INT_MIN || v > INT_MAX) return -EINVAL;
    *out = (int)v;
    return 0;
}

int ev_format_g(char *buf, size_t sz, double v)
{
    int n = snprintf(buf, sz, "%g", v);
    if (n < 0 || (size_t)n >= sz) return -EINVAL;
    const char *dp = localeconv()->decimal_point;
    if (!dp || !*dp || !strcmp(dp, ".")) return 0;
    char *p = strstr(buf, dp);
    if (p) {
        const size_t dp_len = strlen(dp);
        *p = '.';
        memmove(p + 1, p + dp_len, strlen(p + dp_len) + 1);
    }
    return 0;
}
