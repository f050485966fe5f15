#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "math/ev_math.h"
#include "os/os.h"
#include "numconv.h"
#include "svm.h"

typedef struct Text {
    const char *p, *end;
    unsigned line;
    char *err;
    size_t err_sz;
} Text;

#if defined(__GNUC__)
VMAF_OS_PRINTF(2, 3)
#endif
static int fail(Text *t, const char *fmt, ...)
{
    if (t->err && t->err_sz && !t->err[0]) {
        int n = snprintf(t->err, t->err_sz, "libsvm model, line %u: ", t->line);
        if (n >= 0 && (size_t)n < t->err_sz) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(t->err + n, t->err_sz - n, fmt, ap);
            va_end(ap);
        }
    }
    return -EINVAL;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* Next header token; newlines separate tokens like spaces do. */
static size_t next_token(Text *t, const char **tok)
{
    while (t->p < t->end && (is_space(*t->p) || *t->p == '\n')) {
        if (*t->p == '\n') t->line++;
        t->p++;
    }
    *tok = t->p;
    while (t->p < t->end && !is_space(*t->p) && *t->p != '\n') t->p++;
    return (size_t)(t->p - *tok);
}

static int token_is(const char *tok, size_t n, const char *word)
{
    return strlen(word) == n && !memcmp(tok, word, n);
}

static int read_double(Text *t, const char *what, double *out)
{
    const char *tok;
    const size_t n = next_token(t, &tok);
    if (!n) return fail(t, "missing value of %s", what);
    const int err = ev_parse_double(tok, n, out);
    if (err == -ENOMEM) return err;
    if (err) return fail(t, "invalid number \"%.*s\" for %s", (int)(n > 40 ? 40 : n), tok, what);
    return 0;
}

static int read_int(Text *t, const char *what, int *out)
{
    const char *tok;
    const size_t n = next_token(t, &tok);
    if (!n) return fail(t, "missing value of %s", what);
    if (ev_parse_int(tok, n, out))
        return fail(t, "invalid integer \"%.*s\" for %s", (int)(n > 40 ? 40 : n), tok, what);
    return 0;
}

static int skip_values(Text *t, const char *what, int count, int integers)
{
    for (int i = 0; i < count; i++) {
        int err;
        if (integers) {
            int v;
            err = read_int(t, what, &v);
        } else {
            double v;
            err = read_double(t, what, &v);
        }
        if (err) return err;
    }
    return 0;
}

typedef struct Header {
    int has_type, has_kernel, has_gamma, has_nr_class, has_total_sv, has_rho;
    int nr_class, total_sv;
} Header;

static int parse_header(Text *t, EvSvm *m, Header *h)
{
    for (;;) {
        const char *tok;
        const size_t n = next_token(t, &tok);
        if (!n) return fail(t, "unexpected end before \"SV\"");
        if (token_is(tok, n, "SV")) break;

        int err = 0;
        if (token_is(tok, n, "svm_type")) {
            const char *v;
            const size_t vn = next_token(t, &v);
            /* Prediction below is libsvm's regression path only. */
            if (!token_is(v, vn, "nu_svr") && !token_is(v, vn, "epsilon_svr"))
                return fail(t, "svm_type \"%.*s\" is not supported "
                            "(VMAF models are nu_svr or epsilon_svr)",
                            (int)(vn > 40 ? 40 : vn), v);
            h->has_type = 1;
        } else if (token_is(tok, n, "kernel_type")) {
            const char *v;
            const size_t vn = next_token(t, &v);
            if (token_is(v, vn, "linear")) m->kernel = EV_SVM_KERNEL_LINEAR;
            else if (token_is(v, vn, "polynomial")) m->kernel = EV_SVM_KERNEL_POLY;
            else if (token_is(v, vn, "rbf")) m->kernel = EV_SVM_KERNEL_RBF;
            else if (token_is(v, vn, "sigmoid")) m->kernel = EV_SVM_KERNEL_SIGMOID;
            else
                return fail(t, "kernel_type \"%.*s\" is not supported",
                            (int)(vn > 40 ? 40 : vn), v);
            h->has_kernel = 1;
        } else if (token_is(tok, n, "degree")) {
            err = read_int(t, "degree", &m->degree);
        } else if (token_is(tok, n, "gamma")) {
            err = read_double(t, "gamma", &m->gamma);
            h->has_gamma = 1;
        } else if (token_is(tok, n, "coef0")) {
            err = read_double(t, "coef0", &m->coef0);
        } else if (token_is(tok, n, "nr_class")) {
            err = read_int(t, "nr_class", &h->nr_class);
            if (!err && h->nr_class != 2)
                return fail(t, "nr_class is %d; a regression model has 2",
                            h->nr_class);
            h->has_nr_class = 1;
        } else if (token_is(tok, n, "total_sv")) {
            err = read_int(t, "total_sv", &h->total_sv);
            if (!err && h->total_sv < 1)
                return fail(t, "total_sv must be at least 1");
            h->has_total_sv = 1;
        } else if (token_is(tok, n, "rho")) {
            if (!h->has_nr_class) return fail(t, "rho before nr_class");
            err = read_double(t, "rho", &m->rho);
            h->has_rho = 1;
        } else if (token_is(tok, n, "label") || token_is(tok, n, "nr_sv")) {
            if (!h->has_nr_class) return fail(t, "%.*s before nr_class", (int)n, tok);
            err = skip_values(t, "label/nr_sv", h->nr_class, 1);
        } else if (token_is(tok, n, "probA") || token_is(tok, n, "probB")) {
            if (!h->has_nr_class) return fail(t, "%.*s before nr_class", (int)n, tok);
            err = skip_values(t, "probA/probB", 1, 0);
        } else {
            return fail(t, "unknown header entry \"%.*s\"",
                        (int)(n > 40 ? 40 : n), tok);
        }
        if (err) return err;
    }

    if (!h->has_type) return fail(t, "svm_type missing");
    if (!h->has_kernel) return fail(t, "kernel_type missing");
    if (!h->has_nr_class) return fail(t, "nr_class missing");
    if (!h->has_total_sv) return fail(t, "total_sv missing");
    if (!h->has_rho) return fail(t, "rho missing");
    if (m->kernel != EV_SVM_KERNEL_LINEAR && !h->has_gamma)
        return fail(t, "gamma missing");

    /* The rest of the "SV" line must be blank. */
    while (t->p < t->end && is_space(*t->p)) t->p++;
    if (t->p < t->end && *t->p != '\n')
        return fail(t, "unexpected text after \"SV\"");
    if (t->p < t->end) {
        t->p++;
        t->line++;
    }
    return 0;
}

static int push_node(EvSvmNode **nodes, size_t *cnt, size_t *cap,
                     int index, double value)
{
    if (*cnt == *cap) {
        const size_t n = *cap ? *cap * 2 : 256;
        EvSvmNode *p = realloc(*nodes, n * sizeof(*p));
        if (!p) return -ENOMEM;
        *nodes = p;
        *cap = n;
    }
    (*nodes)[(*cnt)++] = (EvSvmNode){ .index = index, .value = value };
    return 0;
}

/* Parse one support-vector line [s, e): "coef idx:val idx:val ...". */
static int parse_sv_line(Text *t, const char *s, const char *e,
                         unsigned n_features, double *coef,
                         EvSvmNode **nodes, size_t *cnt, size_t *cap)
{
    while (s < e && is_space(*s)) s++;
    size_t n = ev_scan_decimal(s, (size_t)(e - s), 1);
    if (!n || (s + n < e && !is_space(s[n])))
        return fail(t, "invalid support vector coefficient");
    int err = ev_parse_double(s, n, coef);
    if (err == -ENOMEM) return err;
    if (err) return fail(t, "support vector coefficient out of range");
    s += n;

    int last = 0;
    for (;;) {
        while (s < e && is_space(*s)) s++;
        if (s == e) break;
        const char *colon = s;
        while (colon < e && *colon != ':' && !is_space(*colon)) colon++;
        int index;
        if (colon == e || *colon != ':' || ev_parse_int(s, (size_t)(colon - s), &index))
            return fail(t, "expected index:value");
        /* The kernel walks both vectors in index order. */
        if (index <= last)
            return fail(t, "feature indices must increase from 1 (got %d after %d)",
                        index, last);
        if ((unsigned)index > n_features)
            return fail(t, "feature index %d, but the model has %u features",
                        index, n_features);
        last = index;
        s = colon + 1;
        n = ev_scan_decimal(s, (size_t)(e - s), 1);
        if (!n || (s + n < e && !is_space(s[n])))
            return fail(t, "invalid value for feature index %d", index);
        double value;
        err = ev_parse_double(s, n, &value);
        if (err == -ENOMEM) return err;
        if (err) return fail(t, "value for feature index %d out of range", index);
        s += n;
        err = push_node(nodes, cnt, cap, index, value);
        if (err) return err;
    }
    return push_node(nodes, cnt, cap, -1, 0.0);
}

int ev_svm_parse(const char *text, size_t len, unsigned n_features,
                 EvSvm **svm, char *err, size_t err_sz)
{
    if (err && err_sz) err[0] = '\0';
    if (!svm) return -EINVAL;
    *svm = NULL;
    Text t = { .p = text, .end = text + (text ? len : 0), .line = 1,
               .err = err, .err_sz = err_sz };
    if (!text) return fail(&t, "empty model");

    EvSvm *m = calloc(1, sizeof(*m));
    if (!m) return -ENOMEM;
    size_t *start = NULL;
    size_t cnt = 0, cap = 0;
    Header h = { 0 };

    int e = parse_header(&t, m, &h);
    if (e) goto fail;

    /* A support vector takes at least two bytes ("c\n"): bound the allocation. */
    if ((size_t)h.total_sv > (size_t)(t.end - t.p) / 2 + 1) {
        e = fail(&t, "total_sv is %d but the text holds fewer support vectors",
                 h.total_sv);
        goto fail;
    }
    m->n_sv = (unsigned)h.total_sv;
    m->coef = malloc(m->n_sv * sizeof(*m->coef));
    start = malloc(m->n_sv * sizeof(*start));
    m->sv = malloc(m->n_sv * sizeof(*m->sv));
    if (!m->coef || !start || !m->sv) {
        e = -ENOMEM;
        goto fail;
    }

    for (unsigned i = 0; i < m->n_sv; i++) {
        if (t.p >= t.end) {
            e = fail(&t, "total_sv is %u but only %u support vectors follow",
                     m->n_sv, i);
            goto fail;
        }
        const char *eol = memchr(t.p, '\n', (size_t)(t.end - t.p));
        if (!eol) eol = t.end;
        start[i] = cnt;
        e = parse_sv_line(&t, t.p, eol, n_features, &m->coef[i], &m->nodes,
                          &cnt, &cap);
        if (e) goto fail;
        t.p = eol < t.end ? eol + 1 : eol;
        t.line++;
    }
    for (; t.p < t.end; t.p++) {
        if (*t.p == '\n') {
            t.line++;
        } else if (!is_space(*t.p)) {
            e = fail(&t, "more support vectors than total_sv (%u)", m->n_sv);
            goto fail;
        }
    }

    /* Pointers only now: the node array no longer moves. */
    for (unsigned i = 0; i < m->n_sv; i++)
        m->sv[i] = &m->nodes[start[i]];
    free(start);
    *svm = m;
    return 0;

fail:
    free(start);
    ev_svm_free(m);
    return e;
}

void ev_svm_free(EvSvm *svm)
{
    if (!svm) return;
    free(svm->coef);
    free(svm->sv);
    free(svm->nodes);
    free(svm);
}

/* libsvm's powi: square-and-multiply, in this order. */
static double powi(double base, int times)
{
    double tmp = base, ret = 1.0;
    for (int t = times; t > 0; t /= 2) {
        if (t % 2 == 1) ret *= tmp;
        tmp = tmp * tmp;
    }
    return ret;
}

static double dot(const EvSvmNode *x, const EvSvmNode *y)
{
    double sum = 0;
    while (x->index != -1 && y->index != -1) {
        if (x->index == y->index) {
            sum += x->value * y->value;
            ++x;
            ++y;
        } else if (x->index > y->index) {
            ++y;
        } else {
            ++x;
        }
    }
    return sum;
}

/*
 * ||x - y||^2 accumulated as libsvm does: one running sum over the merged
 * index sequence, a coordinate present in one vector only adding its own
 * square, then the tail of x, then the tail of y.
 */
static double squared_distance(const EvSvmNode *x, const EvSvmNode *y)
{
    double sum = 0;
    while (x->index != -1 && y->index != -1) {
        if (x->index == y->index) {
            const double d = x->value - y->value;
            sum += d * d;
            ++x;
            ++y;
        } else if (x->index > y->index) {
            sum += y->value * y->value;
            ++y;
        } else {
            sum += x->value * x->value;
            ++x;
        }
    }
    for (; x->index != -1; ++x) sum += x->value * x->value;
    for (; y->index != -1; ++y) sum += y->value * y->value;
    return sum;
}

static double kernel(const EvSvm *m, const EvSvmNode *x, const EvSvmNode *y)
{
    switch (m->kernel) {
    case EV_SVM_KERNEL_LINEAR:
        return dot(x, y);
    case EV_SVM_KERNEL_POLY:
        return powi(m->gamma * dot(x, y) + m->coef0, m->degree);
    case EV_SVM_KERNEL_RBF:
        return ev_exp(-m->gamma * squared_distance(x, y));
    case EV_SVM_KERNEL_SIGMOID:
        return tanh(m->gamma * dot(x, y) + m->coef0);
    }
    return 0;
}

double ev_svm_predict(const EvSvm *m, const EvSvmNode *x)
{
    /* svm_predict_values, regression branch: sum in support-vector order. */
    double sum = 0;
    for (unsigned i = 0; i < m->n_sv; i++)
        sum += m->coef[i] * kernel(m, x, m->sv[i]);
    sum -= m->rho;
    return sum;
}
