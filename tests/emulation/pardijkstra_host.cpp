// pardijkstra.cu run on the host (cuda_host_shim.h), for tests/test_pardijkstra.py. Input (binary, little-endian):
// int64 n, m, source, d, levels, settled_check, threads, count_relaxations, operation_cap, unit_weights; int64
// row_offsets[n+1]; int32 column_ids[m]; int32 weights[m]. Output: int64 dist[n], uint64 words[16], int64
// ctl[levels*8], uint64 per_iteration[2*(n+m+1)]. Usage: pardijkstra_host IN OUT
#include "cuda_host_shim.h"
#include "../../sssp_bench/impls/pardijkstra.cu"

#include <cstdio>

template <typename T>
static std::vector<T> read_array(FILE* in, long long count) {
    std::vector<T> values(std::max(count, 1LL));
    if (count > 0 && fread(values.data(), sizeof(T), count, in) != (size_t)count) {
        fprintf(stderr, "short input\n");
        exit(2);
    }
    return values;
}

template <typename T>
static void write_array(FILE* out, const std::vector<T>& values, long long count) {
    fwrite(values.data(), sizeof(T), count, out);
}

int main(int argc, char** argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s IN OUT\n", argv[0]);
        return 2;
    }
    FILE* in = fopen(argv[1], "rb");
    auto header = read_array<long long>(in, 10);
    long long n = header[0], m = header[1], source = header[2], d = header[3];
    int levels = (int)header[4], settled_check = (int)header[5], threads = (int)header[6];
    int count_relaxations = (int)header[7];
    long long operation_cap = header[8];
    int unit_weights = (int)header[9];
    auto row_offsets = read_array<long long>(in, n + 1);
    auto column_ids = read_array<int>(in, m);
    auto weights = read_array<int>(in, m);
    fclose(in);

    long long signals = d * (((1LL << (2 * levels)) - 1) / 3);
    long long max_degree = 1;
    for (long long v = 0; v < n; ++v) max_degree = std::max(max_degree, row_offsets[v + 1] - row_offsets[v]);
    long long staging = max_degree > d ? max_degree : 1;
    std::vector<long long> dist(n), bucket_p(3 * signals), scratch_p(3 * signals), signal_p(signals), staging_p(staging);
    std::vector<int> settled(n), bucket_v(3 * signals), scratch_v(3 * signals), signal_v(signals), staging_v(staging);
    std::vector<long long> ctl(levels * PD_CTL_STRIDE);
    std::vector<unsigned long long> words(PD_WORDS), per_iteration(2 * (n + m + 1));

    emulated_launch(1, 32, [&] {
        pardijkstra_init(dist.data(), settled.data(), n, source, ctl.data(), levels, signal_p.data(), signal_v.data(),
                         words.data());
    });
    emulated_launch((unsigned)levels, (unsigned)threads, [&] {
        pardijkstra_solve(row_offsets.data(), column_ids.data(), weights.data(), unit_weights, dist.data(),
                          settled.data(), bucket_p.data(), bucket_v.data(), signal_p.data(), signal_v.data(),
                          scratch_p.data(), scratch_v.data(), staging_p.data(), staging_v.data(), ctl.data(), d,
                          levels, settled_check, operation_cap, words.data(), per_iteration.data(),
                          count_relaxations);
    });

    FILE* out = fopen(argv[2], "wb");
    write_array(out, dist, n);
    write_array(out, words, PD_WORDS);
    write_array(out, ctl, levels * PD_CTL_STRIDE);
    write_array(out, per_iteration, 2 * (n + m + 1));
    fclose(out);
    return 0;
}
