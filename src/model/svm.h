/*
 * Support-vector regression as stored in VMAF models: the libsvm text
 * format (header, "SV", one line per support vector) and the prediction
 * of libsvm's svm_predict for epsilon-SVR and nu-SVR, with the same
 * operations in the same order (so the same doubles come out).
 */
#ifndef EXACTVMAF_MODEL_SVM_H
#define EXACTVMAF_MODEL_SVM_H

#include <stddef.h>

/** One coordinate of a sparse vector; a vector ends with index -1. */
typedef struct EvSvmNode {
    int index;
    double value;
} EvSvmNode;

enum EvSvmKernel {
    EV_SVM_KERNEL_LINEAR = 0,
    EV_SVM_KERNEL_POLY,
    EV_SVM_KERNEL_RBF,
    EV_SVM_KERNEL_SIGMOID,
};

typedef struct EvSvm {
    enum EvSvmKernel kernel;
    int degree;
    double gamma, coef0;
    double rho;
    unsigned n_sv;
    double *coef;       /**< n_sv */
    EvSvmNode **sv;     /**< n_sv pointers into nodes, each ending at index -1 */
    EvSvmNode *nodes;
} EvSvm;

/**
 * Parse a libsvm model text of `len` bytes. Feature indices of the
 * support vectors must be increasing and within 1..n_features.
 * @return 0, -EINVAL with a message in err, or -ENOMEM.
 */
int ev_svm_parse(const char *text, size_t len, unsigned n_features,
                 EvSvm **svm, char *err, size_t err_sz);

void ev_svm_free(EvSvm *svm);

/** libsvm's svm_predict for a regression model; x ends with index -1. */
double ev_svm_predict(const EvSvm *svm, const EvSvmNode *x);

#endif
