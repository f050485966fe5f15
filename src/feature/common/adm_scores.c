/* One frame's ADM outputs in emission order (see adm_scores.h). */
#include "feature/common/adm_scores.h"
#include "feature/extractor.h"

int adm_scores_emit(VmafFex *fex, const char *const names[ADM_OUT_COUNT], const AdmScores *sc,
                    bool debug, unsigned index)
{
    const double v[ADM_OUT_COUNT] = {
        sc->adm2, sc->aim, sc->adm3,
        sc->scale[0], sc->scale[1], sc->scale[2], sc->scale[3],
        sc->adm2, sc->num, sc->den,
        sc->num_scale[0], sc->den_scale[0], sc->num_scale[1], sc->den_scale[1],
        sc->num_scale[2], sc->den_scale[2], sc->num_scale[3], sc->den_scale[3],
    };
    return vmaf_fex_emit_list(fex, names, v, debug ? ADM_OUT_COUNT : ADM_OUT_SCORES, index);
}
