/* pmi_wire_test.c: unit tests of launcher/pmi_wire.c: PMI-1 parser, formatter, fd line I/O. */
#include "pmi_wire.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static int failures;

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                       \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fprintf(stderr, "\n");                                                                     \
        failures++;                                                                                \
    } while (0)

#define EXPECT_INT(actual, expected)                                                               \
    do {                                                                                           \
        long a_ = (long)(actual), e_ = (long)(expected);                                           \
        if (a_ != e_)                                                                              \
            FAIL("%s is %ld, expected %ld (last error: %s)", #actual, a_, e_, PMIU_last_error());  \
    } while (0)

#define EXPECT_STR(actual, expected)                                                               \
    do {                                                                                           \
        const char *a_ = (actual), *e_ = (expected);                                               \
        if (a_ == NULL || e_ == NULL ? a_ != e_ : strcmp(a_, e_) != 0)                             \
            FAIL("%s is %s%s%s, expected %s%s%s", #actual, a_ ? "'" : "", a_ ? a_ : "NULL",        \
                 a_ ? "'" : "", e_ ? "'" : "", e_ ? e_ : "NULL", e_ ? "'" : "");                   \
    } while (0)

#define EXPECT_ERROR_MENTIONS(text)                                                                \
    do {                                                                                           \
        if (strstr(PMIU_last_error(), (text)) == NULL)                                             \
            FAIL("last error '%s' does not mention '%s'", PMIU_last_error(), (text));              \
    } while (0)

static int parse(const char *line, PMIU_cmd_t *cmd)
{
    return PMIU_parse(line, strlen(line), cmd);
}

static void test_parse_basic(void)
{
    PMIU_cmd_t cmd;

    EXPECT_INT(parse("cmd=put kvsname=kvs_1 key=P0-shm value=abc\n", &cmd), 0);
    EXPECT_INT(cmd.npairs, 4);
    EXPECT_STR(PMIU_get(&cmd, "cmd"), "put");
    EXPECT_STR(PMIU_get(&cmd, "kvsname"), "kvs_1");
    EXPECT_STR(PMIU_get(&cmd, "key"), "P0-shm");
    EXPECT_STR(PMIU_get(&cmd, "value"), "abc");
    EXPECT_STR(PMIU_get(&cmd, "missing"), NULL);
}

static void test_parse_any_order_and_extra_keys(void)
{
    PMIU_cmd_t cmd;
    int v = -1;

    EXPECT_INT(parse("rc=0 value=x msg=success cmd=get_result", &cmd), 0);
    EXPECT_STR(PMIU_get(&cmd, "cmd"), "get_result");
    EXPECT_STR(PMIU_get(&cmd, "value"), "x");
    EXPECT_INT(PMIU_get_int(&cmd, "rc", &v), 0);
    EXPECT_INT(v, 0);
    EXPECT_INT(PMIU_check_reply(&cmd, "get_result"), 0);
    /* Repeated key: the first wins. */
    EXPECT_INT(parse("cmd=a k=1 k=2", &cmd), 0);
    EXPECT_STR(PMIU_get(&cmd, "k"), "1");
}

static void test_parse_whitespace(void)
{
    PMIU_cmd_t cmd;

    EXPECT_INT(parse("  \t cmd=barrier_out \t\t rc=0   \n", &cmd), 0);
    EXPECT_INT(cmd.npairs, 2);
    EXPECT_STR(PMIU_get(&cmd, "cmd"), "barrier_out");
    EXPECT_STR(PMIU_get(&cmd, "rc"), "0");
    /* CRLF line ends. */
    EXPECT_INT(parse("cmd=finalize_ack rc=0\r\n", &cmd), 0);
    EXPECT_STR(PMIU_get(&cmd, "rc"), "0");
    /* No newline at all is fine too. */
    EXPECT_INT(parse("cmd=finalize", &cmd), 0);
    EXPECT_STR(PMIU_get(&cmd, "cmd"), "finalize");
}

static void test_parse_values(void)
{
    PMIU_cmd_t cmd;

    /* Only the first '=' splits: business cards may hold '='. */
    EXPECT_INT(parse("cmd=get_result rc=0 value=a=b=c", &cmd), 0);
    EXPECT_STR(PMIU_get(&cmd, "value"), "a=b=c");
    EXPECT_INT(parse("cmd=put key=k value=", &cmd), 0);
    EXPECT_STR(PMIU_get(&cmd, "value"), "");
    /* A bare word continues the previous value (servers with spaces in msg=). */
    EXPECT_INT(parse("cmd=get_result rc=1 msg=key  not\tfound value=unknown", &cmd), 0);
    EXPECT_STR(PMIU_get(&cmd, "msg"), "key not found");
    EXPECT_STR(PMIU_get(&cmd, "value"), "unknown");
}

static void test_parse_errors(void)
{
    PMIU_cmd_t cmd;
    char line[PMIU_MAXLINE + 8];

    EXPECT_INT(parse("", &cmd), -1);
    EXPECT_ERROR_MENTIONS("empty");
    EXPECT_INT(parse("   \t\n", &cmd), -1);
    EXPECT_INT(parse("hello cmd=init", &cmd), -1);
    EXPECT_ERROR_MENTIONS("hello");
    EXPECT_INT(parse("cmd=init =1", &cmd), -1);
    EXPECT_ERROR_MENTIONS("empty key");
    EXPECT_INT(PMIU_parse("cmd=a\nb=c", 9, &cmd), -1);
    EXPECT_ERROR_MENTIONS("newline");

    /* 1023 bytes plus the newline is exactly the limit. */
    memset(line, 'x', sizeof(line));
    memcpy(line, "cmd=put value=", 14);
    line[PMIU_MAXLINE - 1] = '\n';
    EXPECT_INT(PMIU_parse(line, PMIU_MAXLINE, &cmd), 0);
    EXPECT_INT(strlen(PMIU_get(&cmd, "value")), PMIU_MAXLINE - 1 - 14);
    line[PMIU_MAXLINE - 1] = 'x';
    line[PMIU_MAXLINE] = '\n';
    EXPECT_INT(PMIU_parse(line, PMIU_MAXLINE + 1, &cmd), -1);
    EXPECT_ERROR_MENTIONS("1025");

    /* More pairs than the parser keeps. */
    size_t len = 0;
    for (int i = 0; i <= PMIU_MAXPAIRS; i++)
        len += (size_t)snprintf(line + len, sizeof(line) - len, "k%d=v ", i);
    EXPECT_INT(PMIU_parse(line, len, &cmd), -1);
    EXPECT_ERROR_MENTIONS("pairs");
}

static void test_get_int(void)
{
    PMIU_cmd_t cmd;
    int v = 42;

    EXPECT_INT(parse("cmd=maxes kvsname_max=256 keylen_max=x vallen_max=99999999999", &cmd), 0);
    EXPECT_INT(PMIU_get_int(&cmd, "kvsname_max", &v), 0);
    EXPECT_INT(v, 256);
    EXPECT_INT(PMIU_get_int(&cmd, "keylen_max", &v), -1);
    EXPECT_ERROR_MENTIONS("keylen_max=x");
    EXPECT_INT(PMIU_get_int(&cmd, "vallen_max", &v), -1);
    EXPECT_INT(PMIU_get_int(&cmd, "nothere", &v), -1);
    EXPECT_ERROR_MENTIONS("nothere");
    EXPECT_INT(v, 256);
}

static void test_check_reply(void)
{
    PMIU_cmd_t cmd;

    EXPECT_INT(parse("cmd=put_result rc=0", &cmd), 0);
    EXPECT_INT(PMIU_check_reply(&cmd, "put_result"), 0);
    /* rc is optional (Hydra's barrier_out, finalize_ack). */
    EXPECT_INT(parse("cmd=barrier_out", &cmd), 0);
    EXPECT_INT(PMIU_check_reply(&cmd, "barrier_out"), 0);
    EXPECT_INT(parse("cmd=get_result rc=-1 msg=key_x_not_found value=unknown", &cmd), 0);
    EXPECT_INT(PMIU_check_reply(&cmd, "get_result"), -1);
    EXPECT_ERROR_MENTIONS("rc=-1");
    EXPECT_ERROR_MENTIONS("key_x_not_found");
    EXPECT_INT(parse("cmd=get_result rc=1", &cmd), 0);
    EXPECT_INT(PMIU_check_reply(&cmd, "get_result"), -1);
    EXPECT_ERROR_MENTIONS("no msg");
    EXPECT_INT(parse("cmd=error rc=-1 msg=malformed", &cmd), 0);
    EXPECT_INT(PMIU_check_reply(&cmd, "put_result"), -1);
    EXPECT_ERROR_MENTIONS("cmd=error");
    EXPECT_ERROR_MENTIONS("malformed");
    EXPECT_INT(parse("rc=0", &cmd), 0);
    EXPECT_INT(PMIU_check_reply(&cmd, "put_result"), -1);
    EXPECT_ERROR_MENTIONS("no cmd=");
    EXPECT_INT(parse("cmd=put_result rc=zero", &cmd), 0);
    EXPECT_INT(PMIU_check_reply(&cmd, "put_result"), -1);
    EXPECT_ERROR_MENTIONS("rc=zero");
}

static void test_format(void)
{
    PMIU_msg_t msg;
    PMIU_cmd_t cmd;
    char buf[PMIU_MAXLINE + 1];
    char big[PMIU_MAXLINE + 1];

    PMIU_msg_start(&msg, "put");
    PMIU_msg_add(&msg, "kvsname", "kvs_9_1");
    PMIU_msg_add(&msg, "key", "P3-tcp");
    PMIU_msg_add(&msg, "value", "10.0.0.1:5000");
    PMIU_msg_add_int(&msg, "n", -12);
    EXPECT_INT(PMIU_msg_finish(&msg), (int)strlen(msg.line));
    EXPECT_STR(msg.line, "cmd=put kvsname=kvs_9_1 key=P3-tcp value=10.0.0.1:5000 n=-12\n");
    /* Round trip. */
    EXPECT_INT(PMIU_parse(msg.line, msg.len, &cmd), 0);
    EXPECT_STR(PMIU_get(&cmd, "cmd"), "put");
    EXPECT_STR(PMIU_get(&cmd, "value"), "10.0.0.1:5000");
    EXPECT_STR(PMIU_get(&cmd, "n"), "-12");

    PMIU_pair_t pairs[] = {{"cmd", "get"}, {"key", "a"}, {"empty", ""}};
    EXPECT_INT(PMIU_format(buf, sizeof(buf), pairs, 3), 21);
    EXPECT_STR(buf, "cmd=get key=a empty=\n");
    EXPECT_INT(PMIU_format(buf, 10, pairs, 3), -1);
    EXPECT_ERROR_MENTIONS("buffer");
    EXPECT_INT(PMIU_format(buf, sizeof(buf), pairs, 0), -1);

    /* Values and keys that would break the line are refused, and stick. */
    const char *bad_values[] = {"a b", "a\tb", "a\nb", "a\r", NULL};
    for (int i = 0; i < 5; i++) {
        PMIU_msg_start(&msg, "put");
        PMIU_msg_add(&msg, "value", bad_values[i]);
        PMIU_msg_add(&msg, "key", "ok");
        if (PMIU_msg_finish(&msg) != -1)
            FAIL("value #%d was accepted: line '%s'", i, msg.line);
    }
    EXPECT_ERROR_MENTIONS("value");
    const char *bad_keys[] = {"", "a=b", "a b", "k\n", NULL};
    for (int i = 0; i < 5; i++) {
        PMIU_msg_start(&msg, "put");
        PMIU_msg_add(&msg, bad_keys[i], "v");
        if (PMIU_msg_finish(&msg) != -1)
            FAIL("key #%d was accepted: line '%s'", i, msg.line);
    }
    EXPECT_INT(PMIU_key_ok("P0-shm"), 1);
    EXPECT_INT(PMIU_value_ok(""), 1);

    /* The longest value that fits: "cmd=x v=" + value + "\n" == PMIU_MAXLINE. */
    size_t fit = PMIU_MAXLINE - strlen("cmd=x v=") - 1;
    memset(big, 'y', fit);
    big[fit] = '\0';
    PMIU_msg_start(&msg, "x");
    PMIU_msg_add(&msg, "v", big);
    EXPECT_INT(PMIU_msg_finish(&msg), PMIU_MAXLINE);
    big[fit] = 'y';
    big[fit + 1] = '\0';
    PMIU_msg_start(&msg, "x");
    PMIU_msg_add(&msg, "v", big);
    EXPECT_INT(PMIU_msg_finish(&msg), -1);
    EXPECT_ERROR_MENTIONS("1025");
}

static void write_str(int fd, const char *s)
{
    if (PMIU_writeall(fd, s, strlen(s)) != 0)
        FAIL("PMIU_writeall('%s'): %s", s, PMIU_last_error());
}

static void test_reader(void)
{
    int sv[2];
    PMIU_reader_t r;
    char line[PMIU_MAXLINE + 1];
    char big[3 * PMIU_MAXLINE];
    size_t len = 0;

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        FAIL("socketpair: %s", strerror(errno));
        return;
    }
    PMIU_reader_init(&r, sv[0]);

    /* Several lines in one write come out one at a time. */
    write_str(sv[1], "cmd=a\ncmd=b x=1\n\ncmd=c");
    EXPECT_INT(PMIU_readline(&r, line, &len), PMIU_LINE_OK);
    EXPECT_STR(line, "cmd=a");
    EXPECT_INT(len, 5);
    EXPECT_INT(PMIU_readline(&r, line, &len), PMIU_LINE_OK);
    EXPECT_STR(line, "cmd=b x=1");
    EXPECT_INT(PMIU_readline(&r, line, &len), PMIU_LINE_OK);
    EXPECT_STR(line, "");
    /* "cmd=c" has no newline yet: not a line. */
    EXPECT_INT(PMIU_reader_next(&r, line, &len), PMIU_LINE_NONE);
    write_str(sv[1], " y=2");
    EXPECT_INT(PMIU_reader_fill(&r), 4);
    EXPECT_INT(PMIU_reader_next(&r, line, &len), PMIU_LINE_NONE);
    write_str(sv[1], "\n");
    EXPECT_INT(PMIU_readline(&r, line, &len), PMIU_LINE_OK);
    EXPECT_STR(line, "cmd=c y=2");

    /* An overlong line is reported once, skipped, and the next one is intact. */
    memset(big, 'z', sizeof(big));
    big[sizeof(big) - 1] = '\n';
    if (PMIU_writeall(sv[1], big, sizeof(big)) != 0)
        FAIL("writing %zu bytes: %s", sizeof(big), PMIU_last_error());
    write_str(sv[1], "cmd=after\n");
    EXPECT_INT(PMIU_readline(&r, line, &len), PMIU_LINE_TOOLONG);
    EXPECT_ERROR_MENTIONS("longer than the limit");
    EXPECT_INT(PMIU_readline(&r, line, &len), PMIU_LINE_OK);
    EXPECT_STR(line, "cmd=after");

    /* A line of exactly the limit passes, one byte more does not. */
    memset(big, 'q', PMIU_MAXLINE);
    big[PMIU_MAXLINE - 1] = '\n';
    PMIU_writeall(sv[1], big, PMIU_MAXLINE);
    EXPECT_INT(PMIU_readline(&r, line, &len), PMIU_LINE_OK);
    EXPECT_INT(len, PMIU_MAXLINE - 1);
    big[PMIU_MAXLINE - 1] = 'q';
    big[PMIU_MAXLINE] = '\n';
    PMIU_writeall(sv[1], big, PMIU_MAXLINE + 1);
    write_str(sv[1], "cmd=ok\n");
    EXPECT_INT(PMIU_readline(&r, line, &len), PMIU_LINE_TOOLONG);
    EXPECT_INT(PMIU_readline(&r, line, &len), PMIU_LINE_OK);
    EXPECT_STR(line, "cmd=ok");

    /* EOF in the middle of a line. */
    write_str(sv[1], "cmd=partial");
    close(sv[1]);
    EXPECT_INT(PMIU_readline(&r, line, &len), PMIU_LINE_NONE);
    EXPECT_ERROR_MENTIONS("middle of a line");
    close(sv[0]);
}

static void on_alarm(int sig)
{
    (void)sig;
}

/* A signal during a blocking read must not turn into an error. */
static void test_reader_eintr(void)
{
    int sv[2];
    PMIU_reader_t r;
    char line[PMIU_MAXLINE + 1];
    size_t len;
    struct sigaction sa;
    struct itimerval it = {.it_interval = {0, 20000}, .it_value = {0, 20000}};

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        FAIL("socketpair: %s", strerror(errno));
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        usleep(200000);
        PMIU_writeall(sv[1], "cmd=late\n", 9);
        _exit(0);
    }
    close(sv[1]);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_alarm; /* no SA_RESTART: read() really sees EINTR */
    sigaction(SIGALRM, &sa, NULL);
    setitimer(ITIMER_REAL, &it, NULL);
    PMIU_reader_init(&r, sv[0]);
    EXPECT_INT(PMIU_readline(&r, line, &len), PMIU_LINE_OK);
    EXPECT_STR(line, "cmd=late");
    it.it_value.tv_usec = 0;
    it.it_interval.tv_usec = 0;
    setitimer(ITIMER_REAL, &it, NULL);
    waitpid(pid, NULL, 0);
    close(sv[0]);
}

/* 4 MB through a non-blocking pipe: partial writes and EAGAIN all the way. */
static void test_writeall_partial(void)
{
    int p[2];
    size_t total = 4u << 20;
    char *buf = malloc(total);

    if (buf == NULL || pipe(p) != 0) {
        FAIL("setup: %s", strerror(errno));
        free(buf);
        return;
    }
    for (size_t i = 0; i < total; i++)
        buf[i] = (char)(i * 7);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[1]);
        size_t got = 0, bad = 0;
        char chunk[8192];
        ssize_t n;
        usleep(50000);
        while ((n = read(p[0], chunk, sizeof(chunk))) > 0) {
            for (ssize_t i = 0; i < n; i++)
                if (chunk[i] != (char)((got + (size_t)i) * 7))
                    bad++;
            got += (size_t)n;
        }
        _exit(got == total && bad == 0 ? 0 : 1);
    }
    close(p[0]);
    fcntl(p[1], F_SETFL, O_NONBLOCK);
    EXPECT_INT(PMIU_writeall(p[1], buf, total), 0);
    close(p[1]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        FAIL("reader child saw a short or corrupt stream (status 0x%x)", status);
    free(buf);
}

int main(void)
{
    test_parse_basic();
    test_parse_any_order_and_extra_keys();
    test_parse_whitespace();
    test_parse_values();
    test_parse_errors();
    test_get_int();
    test_check_reply();
    test_format();
    test_reader();
    test_reader_eintr();
    test_writeall_partial();
    if (failures) {
        fprintf(stderr, "pmi_wire_test: %d check(s) failed\n", failures);
        return 1;
    }
    printf("pmi_wire_test: all checks passed\n");
    return 0;
}
