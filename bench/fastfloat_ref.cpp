// The bare fast_float loop `make bench` prints next to motionprep's MotionCollector reader: the
// speed a C++ parser built on fast_float reaches on the same files and the same core, as a
// yardstick that moves with the machine. It does much less than the reader: the files are read
// into memory before the clock starts; each row's `S,label,` is skipped unread; every number goes
// through fast_float::from_chars into one vector; nothing is validated (no field counts, no
// missing values, no line numbers, no columns, no unit factors).
//
//   fastfloat_ref [--reps N] FILE...   → one JSON line: best CPU-time MB/s over N passes
//
// Build: g++ -O2 -std=c++17 -o fastfloat_ref fastfloat_ref.cpp (fast_float headers from Debian's
// libfast-float-dev).
#include <fast_float/fast_float.h>

#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static double cpu_seconds() {
    rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

int main(int argc, char** argv) {
    int reps = 5;
    std::vector<std::string> files;
    for (int i = 1; i < argc; i++) {
        if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = std::atoi(argv[++i]);
        } else {
            files.push_back(argv[i]);
        }
    }
    std::vector<std::string> buffers;
    size_t total = 0;
    for (const auto& path : files) {
        FILE* f = std::fopen(path.c_str(), "rb");
        if (!f) { std::perror(path.c_str()); return 66; }
        std::fseek(f, 0, SEEK_END);
        long n = std::ftell(f);
        std::fseek(f, 0, SEEK_SET);
        std::string s(static_cast<size_t>(n), '\0');
        if (std::fread(s.data(), 1, s.size(), f) != s.size()) { std::perror(path.c_str()); return 74; }
        std::fclose(f);
        total += s.size();
        buffers.push_back(std::move(s));
    }
    double best = 0, checksum = 0;
    size_t numbers = 0, rows = 0;
    for (int rep = 0; rep < reps; rep++) {
        std::vector<double> out;
        out.reserve(total / 6);
        numbers = rows = 0;
        double start = cpu_seconds();
        for (const auto& s : buffers) {
            const char* p = s.data();
            const char* e = p + s.size();
            const char* nl = static_cast<const char*>(std::memchr(p, '\n', e - p));  // the header
            p = nl ? nl + 1 : e;
            while (p < e) {
                p += 2;  // the sensor code and its comma
                while (p < e && *p != ',') p++;  // the label
                p++;
                while (p < e) {
                    double v;
                    auto r = fast_float::from_chars(p, e, v);
                    out.push_back(v);
                    numbers++;
                    p = r.ptr;
                    if (p >= e || *p++ == '\n') break;
                }
                rows++;
            }
        }
        double seconds = cpu_seconds() - start;
        if (seconds > 0 && total / 1e6 / seconds > best) best = total / 1e6 / seconds;
        checksum = out.empty() ? 0 : out[out.size() / 2];
    }
    std::printf("{\"stage\":\"fastfloat_ref\",\"bytes\":%zu,\"numbers\":%zu,\"rows\":%zu,\"reps\":%d,"
                "\"cpu_mb_per_s\":%.1f,\"checksum\":%.17g}\n", total, numbers, rows, reps, best, checksum);
    return 0;
}
