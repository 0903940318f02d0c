/*
 * The differential oracle for transforms: ModSecurity v3 (libmodsecurity3, through its C API) applies one
 * transform to each input and prints the result.
 *
 * Usage: transform_oracle UNICODE_MAP_FILE CODE_PAGE T1 [T2 ...]
 * UNICODE_MAP_FILE may be "-" for no SecUnicodeMapFile. Each transform name is ModSecurity's (`urlDecodeUni`);
 * a comma-separated list (`utf8toUnicode,urlDecodeUni`) applies a chain. Reads one input per line on stdin, in hex;
 * prints one line per input: the outputs of T1, T2, ... in hex, separated by spaces.
 *
 * How the transformed value comes out: per transform, a rule set with one rule on a request header,
 *   SecRule REQUEST_HEADERS:v "@unconditionalMatch" "id:1,phase:1,t:none,t:T,t:hexEncode,deny,redirect:o:%{MATCHED_VAR}"
 * ModSecurity v3 sets MATCHED_VAR to the transformed value, and `t:hexEncode` makes it one printable word whatever
 * bytes (NUL included) the transform produced; the redirect's expanded URL is the intervention's `url`. The header
 * value is handed over with its length, so NUL bytes in the input reach the transform.
 */
#include <modsecurity/intervention.h>
#include <modsecurity/modsecurity.h>
#include <modsecurity/rules_set.h>
#include <modsecurity/transaction.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static void die(const char *what, const char *detail) {
    fprintf(stderr, "transform_oracle: %s: %s\n", what, detail ? detail : "");
    exit(2);
}

int main(int argc, char **argv) {
    if (argc < 4) die("usage", "transform_oracle UNICODE_MAP_FILE CODE_PAGE T1 [T2 ...]");
    int n = argc - 3;
    ModSecurity *modsec = msc_init();
    RulesSet **sets = calloc(n, sizeof *sets);
    for (int k = 0; k < n; k++) {
        char rules[4096];
        char chain[1024] = "";
        char names[512];
        snprintf(names, sizeof names, "%s", argv[3 + k]);
        for (char *save = NULL, *t = strtok_r(names, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            strncat(chain, "t:", sizeof chain - strlen(chain) - 1);
            strncat(chain, t, sizeof chain - strlen(chain) - 1);
            strncat(chain, ",", sizeof chain - strlen(chain) - 1);
        }
        char map[1200] = "";
        if (strcmp(argv[1], "-") != 0) snprintf(map, sizeof map, "SecUnicodeMapFile %s %s\n", argv[1], argv[2]);
        snprintf(rules, sizeof rules,
                 "SecRuleEngine On\n%s"
                 "SecRule REQUEST_HEADERS:v \"@unconditionalMatch\" "
                 "\"id:1,phase:1,t:none,%st:hexEncode,deny,redirect:o:%%{MATCHED_VAR}\"\n",
                 map, chain);
        const char *error = NULL;
        sets[k] = msc_create_rules_set();
        if (msc_rules_add(sets[k], rules, &error) < 0) die("rules", error);
    }
    size_t cap = 1 << 16;
    char *line = malloc(cap);
    unsigned char *input = malloc(cap);
    ssize_t got;
    while ((got = getline(&line, &cap, stdin)) != -1) {
        input = realloc(input, cap);
        size_t len = 0;
        for (ssize_t i = 0; i + 1 < got && line[i] != '\n'; i += 2) {
            int hi = hexval(line[i]), lo = hexval(line[i + 1]);
            if (hi < 0 || lo < 0) die("input", line);
            input[len++] = (unsigned char)(hi << 4 | lo);
        }
        for (int k = 0; k < n; k++) {
            Transaction *tx = msc_new_transaction(modsec, sets[k], NULL);
            msc_process_connection(tx, "127.0.0.1", 40000, "127.0.0.1", 80);
            msc_process_uri(tx, "/", "GET", "1.1");
            msc_add_n_request_header(tx, (const unsigned char *)"v", 1, input, len);
            msc_process_request_headers(tx);
            ModSecurityIntervention it;
            memset(&it, 0, sizeof it);
            it.status = 200;
            if (!msc_intervention(tx, &it) || it.url == NULL || strncmp(it.url, "o:", 2) != 0)
                die("no intervention for transform", argv[3 + k]);
            printf(k ? " %s" : "%s", it.url + 2);
            free(it.url);
            free(it.log);
            msc_transaction_cleanup(tx);
        }
        printf("\n");
        fflush(stdout);
    }
    for (int k = 0; k < n; k++) msc_rules_cleanup(sets[k]);
    msc_cleanup(modsec);
    return 0;
}
