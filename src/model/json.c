#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/os.h"
#include "json.h"
#include "numconv.h"

typedef struct Parser {
    const unsigned char *p, *end;
    const unsigned char *line_start;
    unsigned line;
    unsigned values;
    int nomem;
    char *err;
    size_t err_sz;
} Parser;

#if defined(__GNUC__)
VMAF_OS_PRINTF(3, 4)
#endif
static int fail_at(Parser *ps, const unsigned char *at, const char *fmt, ...)
{
    /* Only the first failure is reported: it is the cause. */
    if (ps->err && ps->err_sz && !ps->err[0]) {
        const unsigned column = (unsigned)(at - ps->line_start) + 1;
        int n = snprintf(ps->err, ps->err_sz, "line %u, column %u: ",
                         ps->line, column);
        if (n >= 0 && (size_t)n < ps->err_sz) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(ps->err + n, ps->err_sz - n, fmt, ap);
            va_end(ap);
        }
    }
    return -EINVAL;
}

static int fail_nomem(Parser *ps)
{
    ps->nomem = 1;
    fail_at(ps, ps->p, "out of memory");
    return -ENOMEM;
}

static void skip_ws(Parser *ps)
{
    while (ps->p < ps->end) {
        const unsigned char c = *ps->p;
        if (c == '\n') {
            ps->p++;
            ps->line++;
            ps->line_start = ps->p;
        } else if (c == ' ' || c == '\t' || c == '\r') {
            ps->p++;
        } else {
            break;
        }
    }
}

static void value_free(EvJson *v)
{
    if (!v) return;
    free(v->str);
    for (unsigned i = 0; i < v->count; i++) {
        value_free(&v->item[i]);
        if (v->key) free(v->key[i]);
    }
    free(v->item);
    free(v->key);
    memset(v, 0, sizeof(*v));
}

static int parse_value(Parser *ps, EvJson *v, unsigned depth);

static int match_literal(Parser *ps, const char *lit)
{
    const size_t n = strlen(lit);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, lit, n))
        return fail_at(ps, ps->p, "invalid literal (expected \"%s\")", lit);
    ps->p += n;
    return 0;
}

static int is_delimiter(Parser *ps)
{
    if (ps->p >= ps->end) return 1;
    switch (*ps->p) {
    case ' ': case '\t': case '\r': case '\n':
    case ',': case ']': case '}':
        return 1;
    default:
        return 0;
    }
}

static int parse_number(Parser *ps, EvJson *v)
{
    const unsigned char *start = ps->p, *q = ps->p;
    const unsigned char *end = ps->end;
    if (q < end && *q == '-') q++;
    if (q >= end || *q < '0' || *q > '9')
        return fail_at(ps, q, "invalid number: a digit must follow '-'");
    if (*q == '0') {
        q++;
        if (q < end && *q >= '0' && *q <= '9')
            return fail_at(ps, q, "invalid number: leading zero");
    } else {
        while (q < end && *q >= '0' && *q <= '9') q++;
    }
    if (q < end && *q == '.') {
        q++;
        if (q >= end || *q < '0' || *q > '9')
            return fail_at(ps, q, "invalid number: a digit must follow '.'");
        while (q < end && *q >= '0' && *q <= '9') q++;
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < end && (*q == '+' || *q == '-')) q++;
        if (q >= end || *q < '0' || *q > '9')
            return fail_at(ps, q, "invalid number: the exponent has no digits");
        while (q < end && *q >= '0' && *q <= '9') q++;
    }
    ps->p = q;
    if (!is_delimiter(ps))
        return fail_at(ps, q, "invalid character after number");

    const size_t len = (size_t)(q - start);
    v->str = malloc(len + 1);
    if (!v->str) return fail_nomem(ps);
    memcpy(v->str, start, len);
    v->str[len] = '\0';
    v->str_len = len;
    v->type = EV_JSON_NUMBER;

    const int err = ev_parse_double(v->str, len, &v->number);
    if (err == -ENOMEM) return fail_nomem(ps);
    if (err == -ERANGE)
        return fail_at(ps, start, "number out of the range of a double: %s",
                       v->str);
    if (err) return fail_at(ps, start, "invalid number: %s", v->str);
    return 0;
}

static int hex4(const unsigned char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        const unsigned char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= c - '0';
        else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
        else return -1;
    }
    *out = v;
    return 0;
}

/* Length of the valid UTF-8 sequence at s (lead byte >= 0x80), 0 if invalid. */
static size_t utf8_sequence(const unsigned char *s, const unsigned char *end)
{
    const unsigned char c = s[0];
    size_t n;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 2;
    else if (c == 0xe0) n = 3, lo = 0xa0;
    else if (c >= 0xe1 && c <= 0xec) n = 3;
    else if (c == 0xed) n = 3, hi = 0x9f;   /* no UTF-16 surrogates */
    else if (c >= 0xee && c <= 0xef) n = 3;
    else if (c == 0xf0) n = 4, lo = 0x90;
    else if (c >= 0xf1 && c <= 0xf3) n = 4;
    else if (c == 0xf4) n = 4, hi = 0x8f;   /* nothing above U+10FFFF */
    else return 0;
    if ((size_t)(end - s) < n) return 0;
    if (s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf) return 0;
    return n;
}

static size_t utf8_encode(unsigned cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* ps->p is at the opening quote. */
static int parse_string(Parser *ps, char **out, size_t *out_len)
{
    const unsigned char *q = ps->p + 1;
    /* Find the closing quote first: the decoded text is never longer. */
    const unsigned char *close = q;
    while (close < ps->end && *close != '"') {
        if (*close == '\\' && ps->end - close < 2) {
            close = ps->end;
            break;
        }
        close += *close == '\\' ? 2 : 1;
    }
    if (close >= ps->end)
        return fail_at(ps, ps->p, "unterminated string");

    char *buf = malloc((size_t)(close - q) + 1);
    if (!buf) return fail_nomem(ps);
    size_t o = 0;

    while (q < close) {
        const unsigned char c = *q;
        if (c < 0x20) {
            fail_at(ps, q, "control character 0x%02x in string (escape it)", c);
            goto fail;
        }
        if (c >= 0x80) {
            const size_t n = utf8_sequence(q, close);
            if (!n) {
                fail_at(ps, q, "invalid UTF-8 in string");
                goto fail;
            }
            memcpy(buf + o, q, n);
            o += n;
            q += n;
            continue;
        }
        if (c != '\\') {
            buf[o++] = (char)c;
            q++;
            continue;
        }
        const unsigned char e = q[1];
        q += 2;
        switch (e) {
        case '"': buf[o++] = '"'; break;
        case '\\': buf[o++] = '\\'; break;
        case '/': buf[o++] = '/'; break;
        case 'b': buf[o++] = '\b'; break;
        case 'f': buf[o++] = '\f'; break;
        case 'n': buf[o++] = '\n'; break;
        case 'r': buf[o++] = '\r'; break;
        case 't': buf[o++] = '\t'; break;
        case 'u': {
            unsigned cp;
            if (close - q < 4 || hex4(q, &cp)) {
                fail_at(ps, q - 2, "invalid \\u escape");
                goto fail;
            }
            q += 4;
            if (cp >= 0xdc00 && cp <= 0xdfff) {
                fail_at(ps, q - 6, "lone low surrogate in \\u escape");
                goto fail;
            }
            if (cp >= 0xd800 && cp <= 0xdbff) {
                unsigned lo;
                if (close - q < 6 || q[0] != '\\' || q[1] != 'u' ||
                    hex4(q + 2, &lo) || lo < 0xdc00 || lo > 0xdfff) {
                    fail_at(ps, q - 6, "high surrogate not followed by a low surrogate");
                    goto fail;
                }
                q += 6;
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            if (!cp) {
                fail_at(ps, q - 6, "\\u0000 in strings is not supported");
                goto fail;
            }
            o += utf8_encode(cp, buf + o);
            break;
        }
        default:
            fail_at(ps, q - 2, "invalid escape sequence");
            goto fail;
        }
    }
    buf[o] = '\0';
    ps->p = close + 1;
    *out = buf;
    *out_len = o;
    return 0;

fail:
    free(buf);
    return -EINVAL;
}

static int append_item(Parser *ps, EvJson *c, unsigned *cap, EvJson *item,
                       char *key)
{
    if (c->count == *cap) {
        const unsigned n = *cap ? *cap * 2 : 4;
        EvJson *it = realloc(c->item, n * sizeof(*it));
        if (!it) return fail_nomem(ps);
        c->item = it;
        if (c->type == EV_JSON_OBJECT) {
            char **k = realloc(c->key, n * sizeof(*k));
            if (!k) return fail_nomem(ps);
            c->key = k;
        }
        *cap = n;
    }
    c->item[c->count] = *item;
    if (c->type == EV_JSON_OBJECT) c->key[c->count] = key;
    c->count++;
    return 0;
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int check_unique_keys(Parser *ps, const EvJson *obj,
                             const unsigned char *at)
{
    const unsigned n = obj->count;
    if (n < 2) return 0;
    if (n <= 32) {
        for (unsigned i = 1; i < n; i++)
            for (unsigned j = 0; j < i; j++)
                if (!strcmp(obj->key[i], obj->key[j]))
                    return fail_at(ps, at, "duplicate key \"%s\" in object",
                                   obj->key[i]);
        return 0;
    }
    char **k = malloc(n * sizeof(*k));
    if (!k) return fail_nomem(ps);
    memcpy(k, obj->key, n * sizeof(*k));
    qsort(k, n, sizeof(*k), cmp_key);
    int err = 0;
    for (unsigned i = 1; i < n && !err; i++)
        if (!strcmp(k[i], k[i - 1]))
            err = fail_at(ps, at, "duplicate key \"%s\" in object", k[i]);
    free(k);
    return err;
}

static int parse_container(Parser *ps, EvJson *v, unsigned depth)
{
    const int is_object = *ps->p == '{';
    const unsigned char close = is_object ? '}' : ']';
    const unsigned char *start = ps->p;
    const unsigned start_line = ps->line;
    const unsigned char *start_line_begin = ps->line_start;
    unsigned cap = 0;
    int err;

    v->type = is_object ? EV_JSON_OBJECT : EV_JSON_ARRAY;
    if (depth >= EV_JSON_MAX_DEPTH)
        return fail_at(ps, ps->p, "nesting deeper than %d levels",
                       EV_JSON_MAX_DEPTH);
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        return 0;
    }

    for (;;) {
        char *key = NULL;
        if (is_object) {
            if (ps->p >= ps->end || *ps->p != '"')
                return fail_at(ps, ps->p, "expected a string key");
            size_t key_len;
            err = parse_string(ps, &key, &key_len);
            if (err) return err;
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') {
                free(key);
                return fail_at(ps, ps->p, "expected ':' after key");
            }
            ps->p++;
            skip_ws(ps);
        }
        EvJson item;
        memset(&item, 0, sizeof(item));
        err = parse_value(ps, &item, depth + 1);
        if (!err) err = append_item(ps, v, &cap, &item, key);
        if (err) {
            value_free(&item);
            free(key);
            return err;
        }
        skip_ws(ps);
        if (ps->p >= ps->end)
            return fail_at(ps, ps->p, "unexpected end of input in %s",
                           is_object ? "object" : "array");
        if (*ps->p == ',') {
            ps->p++;
            skip_ws(ps);
            if (ps->p < ps->end && *ps->p == close)
                return fail_at(ps, ps->p, "trailing comma");
            continue;
        }
        if (*ps->p == close) {
            ps->p++;
            break;
        }
        return fail_at(ps, ps->p, "expected ',' or '%c'", close);
    }

    if (is_object) {
        /* Report a duplicate at the object's opening brace. */
        const unsigned line = ps->line;
        const unsigned char *line_begin = ps->line_start;
        ps->line = start_line;
        ps->line_start = start_line_begin;
        err = check_unique_keys(ps, v, start);
        ps->line = line;
        ps->line_start = line_begin;
        if (err) return err;
    }
    return 0;
}

static int parse_value(Parser *ps, EvJson *v, unsigned depth)
{
    if (ps->p >= ps->end)
        return fail_at(ps, ps->p, "unexpected end of input (expected a value)");
    if (++ps->values > EV_JSON_MAX_VALUES)
        return fail_at(ps, ps->p, "more than %u values", EV_JSON_MAX_VALUES);

    v->line = ps->line;
    v->column = (unsigned)(ps->p - ps->line_start) + 1;

    switch (*ps->p) {
    case '{':
    case '[':
        return parse_container(ps, v, depth);
    case '"':
        v->type = EV_JSON_STRING;
        return parse_string(ps, &v->str, &v->str_len);
    case 't':
        v->type = EV_JSON_TRUE;
        return match_literal(ps, "true");
    case 'f':
        v->type = EV_JSON_FALSE;
        return match_literal(ps, "false");
    case 'n':
        v->type = EV_JSON_NULL;
        return match_literal(ps, "null");
    default:
        if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
            return parse_number(ps, v);
        if (*ps->p >= 0x20 && *ps->p < 0x7f)
            return fail_at(ps, ps->p, "unexpected character '%c'", *ps->p);
        return fail_at(ps, ps->p, "unexpected byte 0x%02x", *ps->p);
    }
}

int ev_json_parse(const char *data, size_t len, EvJson **root,
                  char *err, size_t err_sz)
{
    if (err && err_sz) err[0] = '\0';
    if (!root) return -EINVAL;
    *root = NULL;

    Parser ps = {
        .p = (const unsigned char *)data,
        .end = (const unsigned char *)data + (data ? len : 0),
        .line_start = (const unsigned char *)data,
        .line = 1,
        .err = err,
        .err_sz = err_sz,
    };
    if (!data || !len) {
        fail_at(&ps, ps.p, "empty document");
        return -EINVAL;
    }
    if (len > EV_JSON_MAX_SIZE) {
        fail_at(&ps, ps.p, "document larger than %zu bytes", EV_JSON_MAX_SIZE);
        return -EINVAL;
    }

    EvJson *v = calloc(1, sizeof(*v));
    if (!v) return fail_nomem(&ps);

    skip_ws(&ps);
    int e = parse_value(&ps, v, 0);
    if (!e) {
        skip_ws(&ps);
        if (ps.p != ps.end)
            e = fail_at(&ps, ps.p, "unexpected data after the JSON value");
    }
    if (e) {
        ev_json_free(v);
        return ps.nomem ? -ENOMEM : -EINVAL;
    }
    *root = v;
    return 0;
}

void ev_json_free(EvJson *root)
{
    if (!root) return;
    value_free(root);
    free(root);
}

const EvJson *ev_json_get(const EvJson *v, const char *key)
{
    if (!v || v->type != EV_JSON_OBJECT || !key) return NULL;
    for (unsigned i = 0; i < v->count; i++)
        if (!strcmp(v->key[i], key)) return &v->item[i];
    return NULL;
}

const char *ev_json_type_name(enum EvJsonType type)
{
    switch (type) {
    case EV_JSON_NULL: return "null";
    case EV_JSON_FALSE:
    case EV_JSON_TRUE: return "boolean";
    case EV_JSON_NUMBER: return "number";
    case EV_JSON_STRING: return "string";
    case EV_JSON_ARRAY: return "array";
    case EV_JSON_OBJECT: return "object";
    }
    return "?";
}
