/*
 * A small strict JSON (RFC 8259) parser that builds a tree.
 *
 * Strict: one value per document, no comments, no trailing commas, no
 * leading zeros or '+', strings must be valid UTF-8 without raw control
 * characters, lone surrogates are refused, duplicate object keys are
 * refused. Numbers are converted with strtod on their own token (so they
 * read exactly as Netflix's parser reads them) and a number whose
 * magnitude overflows a double is an error. Nesting depth, document size
 * and value count are limited, so any input ends in a tree or a message,
 * never in a crash.
 */
#ifndef EXACTVMAF_MODEL_JSON_H
#define EXACTVMAF_MODEL_JSON_H

#include <stddef.h>

#define EV_JSON_MAX_DEPTH 64
#define EV_JSON_MAX_SIZE ((size_t)64 << 20)
#define EV_JSON_MAX_VALUES (1u << 20)

enum EvJsonType {
    EV_JSON_NULL = 0,
    EV_JSON_FALSE,
    EV_JSON_TRUE,
    EV_JSON_NUMBER,
    EV_JSON_STRING,
    EV_JSON_ARRAY,
    EV_JSON_OBJECT,
};

typedef struct EvJson EvJson;

struct EvJson {
    enum EvJsonType type;
    unsigned line, column;  /**< where the value starts, 1-based */
    double number;          /**< EV_JSON_NUMBER */
    /**
     * EV_JSON_STRING: the decoded text (NUL-terminated, no NUL inside);
     * EV_JSON_NUMBER: the number's source token.
     */
    char *str;
    size_t str_len;
    unsigned count;         /**< EV_JSON_ARRAY / EV_JSON_OBJECT: members */
    EvJson *item;           /**< the members' values, in document order */
    char **key;             /**< EV_JSON_OBJECT: the members' names */
};

/**
 * Parse data[0..len). On success *root is the tree (free it with
 * ev_json_free). On failure returns -EINVAL (or -ENOMEM) and writes
 * "line L, column C: what" into err.
 */
int ev_json_parse(const char *data, size_t len, EvJson **root,
                  char *err, size_t err_sz);

void ev_json_free(EvJson *root);

/** Member `key` of an object; NULL when absent or v is not an object. */
const EvJson *ev_json_get(const EvJson *v, const char *key);

/** "null", "boolean", "number", ... for messages. */
const char *ev_json_type_name(enum EvJsonType type);

#endif
