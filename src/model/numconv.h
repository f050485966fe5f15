/*
 * Locale-independent decimal conversions for model files.
 *
 * The C library's strtod/strtof/printf follow LC_NUMERIC, so a program that
 * sets a locale with a decimal comma would read "0.04" as 0. These wrappers
 * always use '.', while keeping the C library's own (correctly rounded)
 * conversion: a value read here is the value Netflix's parser reads.
 */
#ifndef EXACTVMAF_MODEL_NUMCONV_H
#define EXACTVMAF_MODEL_NUMCONV_H

#include <stddef.h>

/**
 * Length of the longest prefix of s[0..len) that is a decimal number
 * [+-]? digits* ('.' digits*)? ([eE] [+-]? digits+)? with at least one
 * mantissa digit; 0 when there is none. No hex, inf or nan.
 */
size_t ev_scan_decimal(const char *s, size_t len, int allow_plus);

/**
 * Convert the whole token s[0..len) (a decimal number, see
 * ev_scan_decimal) to double, rounding as strtod does.
 * @return 0, -ERANGE when the magnitude overflows, -EINVAL when the token
 *         is not a number, -ENOMEM.
 */
int ev_parse_double(const char *s, size_t len, double *out);

/** As ev_parse_double, rounding to float as strtof does. */
int ev_parse_float(const char *s, size_t len, float *out);

/**
 * Parse a decimal integer token [+-]?digits within [INT_MIN, INT_MAX].
 * @return 0 or -EINVAL.
 */
int ev_parse_int(const char *s, size_t len, int *out);

/** snprintf(buf, sz, "%g", v) with '.' as the decimal point. */
int ev_format_g(char *buf, size_t sz, double v);

#endif
