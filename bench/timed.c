/* bench.py's launcher: runs argv[1..] as a child and prints its wall seconds, CPU seconds (user +
 * system, with the children it waited for) and peak RSS in KiB (its largest process) to stderr as
 * one JSON line. Linux counts a process's peak RSS from its parent's memory at fork (and, through
 * vfork, its parent's own peak), so a command timed straight from bench.py's Python process would
 * be charged for that process's hundreds of MiB; started from this small one it is not. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: timed COMMAND [ARG...]\n"); return 64; }
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pid_t pid = fork();
    if (pid < 0) { perror("fork"); return 71; }
    if (pid == 0) { execvp(argv[1], argv + 1); perror(argv[1]); _exit(127); }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) { perror("wait4"); return 71; }
    clock_gettime(CLOCK_MONOTONIC, &b);
    fprintf(stderr, "\n{\"wall\": %.6f, \"cpu\": %.6f, \"maxrss_kib\": %ld}\n",
            (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9,
            ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
            ru.ru_maxrss);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
