/* A DIMACS 9 shortest-path graph (`p sp n m`, then `a u v w` per arc, 1-based ids, integer weights) read into
 * CSR: the reader the reference programs of sssp-bench's external kind share (README: Bring your own
 * implementation). It reads what `sssp-bench export --format dimacs9` writes, and the 9th DIMACS challenge's files.
 * Every problem is one line on stderr and exit status 2. */
#ifndef SSSP_BENCH_EXTERNALS_DIMACS_H
#define SSSP_BENCH_EXTERNALS_DIMACS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int64_t n, m;
    int64_t *offsets;  /* n + 1 */
    int32_t *targets;  /* m, 0-based */
    int64_t *weights;  /* m */
} dimacs_graph;

static void dimacs_fail(const char *path, int64_t line, const char *what) {
    fprintf(stderr, "%s:%lld: %s\n", path, (long long)line, what);
    exit(2);
}

/* The next integer at *p (after blanks), advancing *p; 0 when there is none before the end of the line. */
static int dimacs_integer(const char **p, int64_t *value) {
    const char *s = *p;
    while (*s == ' ' || *s == '\t') s++;
    int negative = 0;
    if (*s == '-') { negative = 1; s++; }
    if (*s < '0' || *s > '9') return 0;
    int64_t v = 0;
    while (*s >= '0' && *s <= '9') v = v * 10 + (*s++ - '0');
    *value = negative ? -v : v;
    *p = s;
    return 1;
}

static dimacs_graph dimacs_read(const char *path) {
    FILE *file = fopen(path, "rb");
    if (!file) { perror(path); exit(2); }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *text = (char *)malloc((size_t)size + 1);
    if (!text || fread(text, 1, (size_t)size, file) != (size_t)size) dimacs_fail(path, 0, "cannot read the file");
    fclose(file);
    text[size] = '\0';

    dimacs_graph g = {0, 0, NULL, NULL, NULL};
    int64_t *tails = NULL, arcs = 0, line = 0;
    for (char *s = text; *s; line++) {
        char *end = strchr(s, '\n');
        if (end) *end = '\0';
        const char *p = s + 1;
        if (s[0] == 'p') {
            while (*p == ' ') p++;
            if (strncmp(p, "sp", 2) != 0) dimacs_fail(path, line + 1, "expected `p sp n m`");
            p += 2;
            if (!dimacs_integer(&p, &g.n) || !dimacs_integer(&p, &g.m) || g.n < 1 || g.m < 0)
                dimacs_fail(path, line + 1, "expected `p sp n m`");
            tails = (int64_t *)malloc(sizeof(int64_t) * (size_t)(g.m + 1));
            g.targets = (int32_t *)malloc(sizeof(int32_t) * (size_t)(g.m + 1));
            g.weights = (int64_t *)malloc(sizeof(int64_t) * (size_t)(g.m + 1));
        } else if (s[0] == 'a') {
            int64_t u, v, w;
            if (!tails) dimacs_fail(path, line + 1, "an arc before the `p sp n m` line");
            if (!dimacs_integer(&p, &u) || !dimacs_integer(&p, &v) || !dimacs_integer(&p, &w))
                dimacs_fail(path, line + 1, "expected `a u v w` with integer weight");
            if (u < 1 || u > g.n || v < 1 || v > g.n) dimacs_fail(path, line + 1, "vertex id out of 1..n");
            if (arcs == g.m) dimacs_fail(path, line + 1, "more arcs than the `p` line says");
            tails[arcs] = u - 1; g.targets[arcs] = (int32_t)(v - 1); g.weights[arcs] = w; arcs++;
        } else if (s[0] != 'c' && s[0] != '\0' && s[0] != '\r') {
            dimacs_fail(path, line + 1, "expected a c, p or a line");
        }
        if (!end) break;
        s = end + 1;
    }
    if (!tails) dimacs_fail(path, line, "no `p sp n m` line");
    if (arcs != g.m) dimacs_fail(path, line, "fewer arcs than the `p` line says");

    /* counting sort by tail, keeping each row's arcs in file order */
    g.offsets = (int64_t *)calloc((size_t)g.n + 1, sizeof(int64_t));
    for (int64_t a = 0; a < g.m; a++) g.offsets[tails[a] + 1]++;
    for (int64_t v = 0; v < g.n; v++) g.offsets[v + 1] += g.offsets[v];
    int64_t *next = (int64_t *)malloc(sizeof(int64_t) * (size_t)(g.n + 1));
    memcpy(next, g.offsets, sizeof(int64_t) * (size_t)(g.n + 1));
    int32_t *targets = (int32_t *)malloc(sizeof(int32_t) * (size_t)(g.m + 1));
    int64_t *weights = (int64_t *)malloc(sizeof(int64_t) * (size_t)(g.m + 1));
    for (int64_t a = 0; a < g.m; a++) {
        int64_t at = next[tails[a]]++;
        targets[at] = g.targets[a];
        weights[at] = g.weights[a];
    }
    free(g.targets); free(g.weights); free(next); free(tails); free(text);
    g.targets = targets;
    g.weights = weights;
    return g;
}

/* The source argument, 0-based, checked against n. */
static int64_t dimacs_source(const char *text, int64_t n) {
    char *end;
    long long source = strtoll(text, &end, 10);
    if (*end != '\0' || source < 0 || source >= n) {
        fprintf(stderr, "source %s is not a vertex (0-based, n=%lld)\n", text, (long long)n);
        exit(2);
    }
    return (int64_t)source;
}

/* `count` values of `size` bytes written to `path`, or one line on stderr and exit status 2. */
static void write_values(const char *path, const void *values, size_t size, int64_t count) {
    FILE *out = fopen(path, "wb");
    if (!out || fwrite(values, size, (size_t)count, out) != (size_t)count || fclose(out) != 0) {
        perror(path);
        exit(2);
    }
}

#endif
