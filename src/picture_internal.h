#ifndef EXACTVMAF_PICTURE_INTERNAL_H
#define EXACTVMAF_PICTURE_INTERNAL_H

#include "libvmaf/picture.h"

/** Take another reference to src's buffer into dst. */
int vmaf_picture_ref(VmafPicture *dst, const VmafPicture *src);

#endif
