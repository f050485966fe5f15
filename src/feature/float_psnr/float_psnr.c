/* Not built yet: registered so that asking for it says so. The room's
 * author replaces this file with the extractor. */
#include "feature/extractor.h"

const VmafFeatureExtractor vmaf_fex_float_psnr = {
    .name = "float_psnr",
};
