/**
 * @file report.c
 * @brief Table, CSV and JSON output of a run.
 */
#include "report.h"

#include <string.h>

static const char *csv_columns =
    "gpu,driver,cuda,commit,date,chapter,kernel,m,n,k,knobs,"
    "ms_median,ms_min,ms_max,tflops,pct_cublas,verified";

static void fmt_opt(char *buf, size_t len, const char *fmt, double v)
{
    if (v < 0.0) snprintf(buf, len, "-");
    else snprintf(buf, len, fmt, v);
}

void report_table(FILE *f, const report_row *rows, int n)
{
    int i, wk = 6, wn = 5;
    for (i = 0; i < n; ++i) {
        int a = (int)strlen(rows[i].kernel), b = (int)strlen(rows[i].knobs);
        if (a > wk) wk = a;
        if (b > wn) wn = b;
    }
    fprintf(f, "%-*s  %-*s  %10s %10s %10s  %8s  %8s  %8s  %s\n", wk, "kernel", wn, "knobs",
            "median ms", "min ms", "max ms", "TFLOP/s", "%cuBLAS", "speedup", "verified");
    for (i = 0; i < n; ++i) {
        const report_row *r = &rows[i];
        char pct[32], sp[32];
        fmt_opt(pct, sizeof pct, "%.1f%%", r->pct_cublas);
        fmt_opt(sp, sizeof sp, "%.2fx", r->speedup_prev);
        fprintf(f, "%-*s  %-*s  %10.4f %10.4f %10.4f  %8.2f  %8s  %8s  %s\n", wk, r->kernel, wn,
                r->knobs, r->t.median, r->t.min, r->t.max, r->tflops, pct, sp, r->verified);
    }
    fprintf(f, "(speedup: over the row above; %%cuBLAS: cuBLAS median time / this median time)\n");
}

void report_demo_table(FILE *f, const report_row *rows, int n, long count, const char *per)
{
    int i, wk = 6, wn = 5;
    char col[48];
    for (i = 0; i < n; ++i) {
        int a = (int)strlen(rows[i].kernel), b = (int)strlen(rows[i].knobs);
        if (a > wk) wk = a;
        if (b > wn) wn = b;
    }
    snprintf(col, sizeof col, "us/%s", per);
    fprintf(f, "%-*s  %-*s  %10s %10s %10s  %10s  %8s  %s\n", wk, "kernel", wn, "knobs",
            "median ms", "min ms", "max ms", col, "speedup", "verified");
    for (i = 0; i < n; ++i) {
        const report_row *r = &rows[i];
        char sp[32];
        fmt_opt(sp, sizeof sp, "%.2fx", i == 0 ? -1.0 : rows[0].t.median / r->t.median);
        fprintf(f, "%-*s  %-*s  %10.4f %10.4f %10.4f  %10.3f  %8s  %s\n", wk, r->kernel, wn,
                r->knobs, r->t.median, r->t.min, r->t.max, 1000.0 * r->t.median / (double)count, sp,
                r->verified);
    }
    fprintf(f, "(us/%s: median time / %ld; speedup: over the first row)\n", per, count);
}

/* Quote a CSV field only when it needs it (RFC 4180). */
static void csv_field(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\n") == NULL) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void report_csv(FILE *f, const report_context *c, const report_row *rows, int n, int header)
{
    int i;
    if (header) fprintf(f, "%s\n", csv_columns);
    for (i = 0; i < n; ++i) {
        const report_row *r = &rows[i];
        const char *lead[] = {c->gpu, c->driver, c->cuda, c->commit, c->date, c->chapter, r->kernel};
        size_t j;
        char pct[32];
        for (j = 0; j < sizeof lead / sizeof lead[0]; ++j) {
            csv_field(f, lead[j]);
            fputc(',', f);
        }
        fprintf(f, "%ld,%ld,%ld,", c->m, c->n, c->k);
        csv_field(f, r->knobs);
        char tf[32];
        if (r->pct_cublas < 0.0) snprintf(pct, sizeof pct, "NA");
        else snprintf(pct, sizeof pct, "%.2f", r->pct_cublas);
        if (r->tflops < 0.0) snprintf(tf, sizeof tf, "NA");
        else snprintf(tf, sizeof tf, "%.3f", r->tflops);
        fprintf(f, ",%.5f,%.5f,%.5f,%s,%s,%s\n", r->t.median, r->t.min, r->t.max, tf, pct,
                r->verified);
    }
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

void report_json(FILE *f, const report_context *c, const report_row *rows, int n)
{
    int i;
    for (i = 0; i < n; ++i) {
        const report_row *r = &rows[i];
        fputs("{\"gpu\":", f);      json_string(f, c->gpu);
        fputs(",\"driver\":", f);   json_string(f, c->driver);
        fputs(",\"cuda\":", f);     json_string(f, c->cuda);
        fputs(",\"commit\":", f);   json_string(f, c->commit);
        fputs(",\"date\":", f);     json_string(f, c->date);
        fputs(",\"chapter\":", f);  json_string(f, c->chapter);
        fputs(",\"kernel\":", f);   json_string(f, r->kernel);
        fprintf(f, ",\"m\":%ld,\"n\":%ld,\"k\":%ld,\"knobs\":", c->m, c->n, c->k);
        json_string(f, r->knobs);
        fprintf(f, ",\"ms_median\":%.5f,\"ms_min\":%.5f,\"ms_max\":%.5f", r->t.median, r->t.min,
                r->t.max);
        if (r->tflops < 0.0) fputs(",\"tflops\":null", f);
        else fprintf(f, ",\"tflops\":%.3f", r->tflops);
        if (r->pct_cublas < 0.0) fputs(",\"pct_cublas\":null", f);
        else fprintf(f, ",\"pct_cublas\":%.2f", r->pct_cublas);
        fputs(",\"verified\":", f); json_string(f, r->verified);
        fputs("}\n", f);
    }
}
