/**
 * @file feature.h
 * Option dictionaries for feature extractors (libvmaf 3.x compatible).
 */
#ifndef __VMAF_FEATURE_H__
#define __VMAF_FEATURE_H__

#ifdef __cplusplus
extern "C" {
#endif

typedef struct VmafFeatureDictionary VmafFeatureDictionary;

/**
 * Set key=val in *dict, creating the dictionary when *dict is NULL.
 * A later value for the same key replaces the earlier one.
 * @return 0 or a negative errno.
 */
int vmaf_feature_dictionary_set(VmafFeatureDictionary **dict, const char *key,
                                const char *val);

/** Free *dict and set it to NULL. */
int vmaf_feature_dictionary_free(VmafFeatureDictionary **dict);

#ifdef __cplusplus
}
#endif

#endif /* __VMAF_FEATURE_H__ */
