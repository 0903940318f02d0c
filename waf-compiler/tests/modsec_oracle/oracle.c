/*
 * The differential oracle for transforms and operators: ModSecurity v3 (libmodsecurity3, through its C API)
 * applies one transform chain, or one operator, to each input and prints the result.
 *
 * Usage: oracle UNICODE_MAP_FILE CODE_PAGE R1 [R2 ...]
 * UNICODE_MAP_FILE may be "-" for no SecUnicodeMapFile. Each R is either
 * - a transform by ModSecurity's name (`urlDecodeUni`), or a comma-separated chain (`utf8toUnicode,urlDecodeUni`):
 *   its output is the transformed value;
 * - an operator as SecRule's second argument is written, starting with `@` (`@validateByteRange 1-9,32-126`;
 *   a `"` in it escaped as `\"`): its output is one byte, 01 when the operator matched, 00 when not;
 * - `chain ` and an operator: the same, the operator in a chained rule on MATCHED_VAR.
 * Reads one input per line on stdin, in hex; prints one line per input: the outputs of R1, R2, ... in hex,
 * separated by spaces.
 *
 * How the transformed value comes out: per transform, a rule set with one rule on a request header,
 *   SecRule REQUEST_HEADERS:v "@unconditionalMatch" "id:1,phase:1,t:none,t:T,t:hexEncode,deny,redirect:o:%{MATCHED_VAR}"
 * ModSecurity v3 sets MATCHED_VAR to the transformed value, and `t:hexEncode` makes it one printable word whatever
 * bytes (NUL included) the transform produced; the redirect's expanded URL is the intervention's `url`.
 * How an operator's verdict comes out: per operator, a rule set with
 *   SecRule REQUEST_HEADERS:v "OPERATOR" "id:1,phase:1,t:none,deny,status:403"
 * (for `chain OPERATOR`, `SecRule REQUEST_HEADERS:v "@unconditionalMatch" "id:1,...,status:403,chain"` and
 * `SecRule MATCHED_VAR "OPERATOR" "t:none"`), and the intervention (or its absence) after the request headers. Either way the header value is handed over
 * with its length, so NUL bytes in the input reach the transform or operator.
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
    fprintf(stderr, "oracle: %s: %s\n", what, detail ? detail : "");
    exit(2);
}

/* Whether R is an operator (answered 01/00) rather than a transform chain. */
static int is_operator(const char *r) { return r[0] == '@' || strncmp(r, "chain ", 6) == 0; }

int main(int argc, char **argv) {
    if (argc < 4) die("usage", "oracle UNICODE_MAP_FILE CODE_PAGE R1 [R2 ...]");
    int n = argc - 3;
    ModSecurity *modsec = msc_init();
    RulesSet **sets = calloc(n, sizeof *sets);
    for (int k = 0; k < n; k++) {
        char rules[8192];
        char map[1200] = "";
        if (strcmp(argv[1], "-") != 0) snprintf(map, sizeof map, "SecUnicodeMapFile %s %s\n", argv[1], argv[2]);
        if (strncmp(argv[3 + k], "chain ", 6) == 0) {
            snprintf(rules, sizeof rules,
                     "SecRuleEngine On\n%s"
                     "SecRule REQUEST_HEADERS:v \"@unconditionalMatch\" \"id:1,phase:1,t:none,deny,status:403,chain\"\n"
                     "SecRule MATCHED_VAR \"%s\" \"t:none\"\n",
                     map, argv[3 + k] + 6);
        } else if (argv[3 + k][0] == '@') {
            snprintf(rules, sizeof rules,
                     "SecRuleEngine On\n%s"
                     "SecRule REQUEST_HEADERS:v \"%s\" \"id:1,phase:1,t:none,deny,status:403\"\n",
                     map, argv[3 + k]);
        } else {
            char chain[1024] = "";
            char names[512];
            snprintf(names, sizeof names, "%s", argv[3 + k]);
            for (char *save = NULL, *t = strtok_r(names, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                strncat(chain, "t:", sizeof chain - strlen(chain) - 1);
                strncat(chain, t, sizeof chain - strlen(chain) - 1);
                strncat(chain, ",", sizeof chain - strlen(chain) - 1);
            }
            snprintf(rules, sizeof rules,
                     "SecRuleEngine On\n%s"
                     "SecRule REQUEST_HEADERS:v \"@unconditionalMatch\" "
                     "\"id:1,phase:1,t:none,%st:hexEncode,deny,redirect:o:%%{MATCHED_VAR}\"\n",
                     map, chain);
        }
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
            int disrupted = msc_intervention(tx, &it);
            if (k) printf(" ");
            if (is_operator(argv[3 + k])) {
                printf(disrupted ? "01" : "00");
            } else {
                if (!disrupted || it.url == NULL || strncmp(it.url, "o:", 2) != 0)
                    die("no intervention for transform", argv[3 + k]);
                printf("%s", it.url + 2);
            }
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
