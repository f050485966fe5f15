#!/usr/bin/env python3
"""Write the seed corpora in tests/fuzz/corpus/<target>/ (deterministic;
rerun after changing an input layout). Seeds are small valid inputs plus a
few characteristic broken ones; the fuzzers mutate from there."""
import json, os, shutil, struct

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..', '..')
OUT = os.path.join(HERE, 'corpus')


def pattern(n, seed):
    return bytes(((i * 7 + seed * 31) ^ (i >> 3)) & 0xff for i in range(n))


def planes(w, h, chroma):
    c = {'420': ((w + 1) // 2, (h + 1) // 2), '422': ((w + 1) // 2, h), '444': (w, h),
         'mono': (0, 0), '444alpha': (w, h)}[chroma]
    n = w * h + 2 * c[0] * c[1]
    return n + (w * h if chroma == '444alpha' else 0)


def y4m(w, h, frames, chroma='420', bpc=8, extra=''):
    tag = chroma if bpc == 8 else '%sp%d' % (chroma, bpc)
    out = b'YUV4MPEG2 W%d H%d F30000:1001 Ip A1:1 C%s%s\n' % (w, h, tag.encode(), extra.encode())
    n = planes(w, h, chroma) * (2 if bpc > 8 else 1)
    for f in range(frames):
        data = bytearray(pattern(n, f))
        if bpc > 8:
            for i in range(1, n, 2):
                data[i] &= (1 << (bpc - 8)) - 1
        out += b'FRAME\n' + bytes(data)
    return out


def write(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


def y4m_seeds():
    seeds = {
        '420_16x16_2': y4m(16, 16, 2),
        '420_odd_17x9': y4m(17, 9, 2),
        '422_8x8': y4m(8, 8, 1, '422'),
        '444_8x8': y4m(8, 8, 1, '444'),
        'mono_8x8': y4m(8, 8, 2, 'mono'),
        '444alpha_4x4': y4m(4, 4, 1, '444alpha'),
        '420p10_8x8': y4m(8, 8, 2, '420', 10),
        '444p16_4x4': y4m(4, 4, 1, '444', 16),
        'mono12_4x4': y4m(4, 4, 1, 'mono', 12),
        'frame_tags': y4m(8, 8, 2).replace(b'FRAME\n', b'FRAME Ixyz\n'),
        'truncated': y4m(16, 16, 2)[:-7],
        'c411': b'YUV4MPEG2 W8 H8 C411\nFRAME\n' + bytes(96),
        'interlaced': b'YUV4MPEG2 W8 H8 It\nFRAME\n' + bytes(96),
        'huge': b'YUV4MPEG2 W32768 H32768 C444p16\nFRAME\n' + bytes(64),
        'no_frames': b'YUV4MPEG2 W8 H8\n',
    }
    for i, (name, data) in enumerate(sorted(seeds.items())):
        write('y4m', name, bytes([i % 4]) + data)


def yuv_seeds():
    # w, h, format (0 420, 1 422, 2 444, 3 400), depth (0 8, 1 10, 2 12, 3 16), mode
    for w, h, f, b in [(8, 8, 0, 0), (9, 7, 0, 1), (16, 4, 1, 2), (5, 5, 2, 3), (8, 8, 3, 0),
                       (1, 1, 2, 0), (2, 2, 0, 0)]:
        ch = [((w + 1) // 2, (h + 1) // 2), ((w + 1) // 2, h), (w, h), (0, 0)][f]
        n = (w * h + 2 * ch[0] * ch[1]) * (2 if b else 1)
        data = bytearray(pattern(2 * n + 3, w))
        if b:
            for i in range(1, len(data), 2):
                data[i] &= [0, 3, 15, 255][b]
        write('yuv', 'g%dx%d_f%d_b%d' % (w, h, f, b), bytes([w, h, f, b, (w + h) % 4]) + data)


def tiny_model(n_sv=3):
    names = ['VMAF_feature_adm2_score', 'VMAF_feature_motion2_score',
             'VMAF_feature_vif_scale0_score', 'VMAF_feature_vif_scale1_score',
             'VMAF_feature_vif_scale2_score', 'VMAF_feature_vif_scale3_score']
    svs = ''.join('%d 1:0.%d 2:0.5 3:0.25 4:0.6 5:0.7 6:0.8\n' % (4 - 8 * (i % 2), i + 1)
                  for i in range(n_sv))
    return {'param_dict': {'C': 4.0, 'nu': 0.9, 'gamma': 0.04},
            'model_dict': {
                'model': 'svm_type nu_svr\nkernel_type rbf\ngamma 0.04\nnr_class 2\n'
                         'total_sv %d\nrho -1.33133\nSV\n%s' % (n_sv, svs),
                'score_transform': {'p0': 1.7, 'p1': 1.72, 'p2': -0.007, 'out_gte_in': 'true'},
                'norm_type': 'linear_rescale', 'score_clip': [0.0, 100.0],
                'feature_names': names,
                'intercepts': [-0.3, -1.8, -0.003, -0.17, -0.53, -0.76, -1.08],
                'slopes': [0.012, 2.8, 0.06, 1.22, 1.54, 1.76, 2.09],
                'model_type': 'LIBSVMNUSVR',
                'feature_opts_dicts': [{'adm_enhn_gain_limit': 1.0}, {}, {}, {}, {}, {}]}}


def model_seeds():
    m = tiny_model()
    write('model', 'tiny', b'\x00' + json.dumps(m).encode())
    write('model', 'tiny_transform', b'\x02' + json.dumps(m, indent=1).encode())
    k = json.loads(json.dumps(m))
    k['model_dict']['score_transform'] = {'enabled': True, 'knots': [[0, 0], [50, 60], [100, 100]]}
    write('model', 'knots', b'\x06' + json.dumps(k).encode())
    b = json.loads(json.dumps(m))
    b['model_dict']['model_type'] = 'BOOTSTRAP_LIBSVMNUSVR'
    coll = {'0': b, '1': b, '2': b}
    write('model', 'collection', b'\x04' + json.dumps(coll).encode())
    write('model', 'escapes', b'\x00' + b'{"a\\u00e9\\ud83d\\ude00": [1e308, -0.0, true, null]}')
    with open(os.path.join(ROOT, 'models', 'vmaf_float_v0.6.1neg.json'), 'rb') as f:
        real = json.load(f)
    real['model_dict']['model'] = '\n'.join(real['model_dict']['model'].split('\n')[:12]) + '\n'
    real['model_dict']['model'] = real['model_dict']['model'].replace('total_sv 211', 'total_sv 5')
    write('model', 'real_trimmed', b'\x01' + json.dumps(real).encode())


def options_seeds():
    sets = [
        ['-r', 'r.y4m', '-d', 'd.y4m', '--model', 'version=vmaf_float_v0.6.1'],
        ['-r', 'r.yuv', '-d', 'd.yuv', '-w', '64', '-h', '32', '-p', '420', '-b', '10',
         '--no_prediction', '--feature', 'float_adm=debug=true:egl=1.2', '--csv', '-o', 'x'],
        ['-r', 'a', '-d', 'b', '--model',
         'version=vmaf_float_v0.6.1neg:name=neg:disable_clip:float_adm.adm_enhn_gain_limit=1.1',
         '--model', 'version=vmaf_float_b_v0.6.3:enable_transform=true'],
        ['-r', 'a', '-d', 'b', '--feature', 'float_vif=vif_enhn_gain_limit=1.0:vif_kernelscale=0.5',
         '--feature', 'float_motion=motion_force_zero=true', '--feature', 'float_ms_ssim',
         '--feature', 'psnr=enable_chroma=false', '--feature', 'cambi=window_size=63'],
        ['-r', 'a', '-d', 'b', '--aom_ctc', 'v7.0', '--threads', '2', '--subsample', '3',
         '--frame_cnt', '10', '--frame_skip_ref', '0x1', '--precision', 'max'],
        ['-r', 'a', '-d', 'b', '--nflx_ctc', 'v1.0', '--division', 'rcp', '--json', '-qn'],
        ['-r', 'a', '-d', 'b', '--feature', 'float_adm=egl=1.2:adm_enhn_gain_limit=1.1'],
        ['--help'],
        ['-v'],
        ['-r'],
    ]
    for i, argv in enumerate(sets):
        write('options', 'argv%02d' % i, b'\0'.join(a.encode() for a in argv))


def api_seeds():
    # w, h, fmt, depth, frames, mask(2), threads, subsample, model, out fmt, opts\0, samples
    seeds = [
        (48, 32, 0, 0, 2, 0x0007, 0, 0, 1, 1, b'debug=true'),
        (16, 16, 2, 1, 3, 0xffff, 0, 1, 0, 2, b''),
        (8, 8, 0, 0, 1, 0x0001, 0, 0, 0, 3, b'egl=1.2'),
        (33, 17, 1, 3, 2, 0x0006, 1, 0, 2, 4, b'vif_kernelscale=0.5'),
        (1, 1, 2, 0, 2, 0xfff8, 0, 0, 0, 1, b''),
        (64, 64, 3, 2, 2, 0x00ff, 2, 2, 3, 2, b'motion_force_zero=true'),
        (23, 41, 0, 1, 4, 0x0f00, 0, 0, 4, 1, b'enable_chroma=true'),
        # f | 0x80: 160 is added to w and h (ms_ssim and cambi minimums)
        (60, 60, 0x80, 0, 2, 0xffff, 0, 0, 0, 1, b''),
        (30, 70, 0x82, 1, 1, 0x2000, 0, 0, 0, 2, b'topk=0.5'),
    ]
    for i, (w, h, f, b, n, mask, th, ss, mo, of, opts) in enumerate(seeds):
        to_file = 0x80 if i % 2 else 0     # bit 7: write to a regular file
        head = bytes([w - 1, h - 1, f, b, n - 1]) + struct.pack('<H', mask) + \
            bytes([th, ss, mo, (of - 1) | to_file]) + opts + b'\0'
        write('api', 'seed%02d' % i, head + pattern(300 + 50 * i, i))


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    y4m_seeds()
    yuv_seeds()
    model_seeds()
    options_seeds()
    api_seeds()


if __name__ == '__main__':
    main()
