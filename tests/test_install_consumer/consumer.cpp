// SPDX-License-Identifier: MIT
// Uses the installed header and library from C++.
#include <cachewise.h>

#include <cstdio>
#include <cstring>
#include <vector>

int main()
{
    std::vector<unsigned char> src(1 << 16), dst(src.size());
    for (std::size_t i = 0; i < src.size(); i++)
        src[i] = static_cast<unsigned char>(i * 13 + 5);
    if (cw_copy(dst.data(), src.data(), src.size(), CW_DST_NOREUSE) != dst.data() ||
        std::memcmp(dst.data(), src.data(), src.size()) != 0) {
        std::fprintf(stderr, "consumer_cxx: copy failed\n");
        return 1;
    }
    std::printf("consumer_cxx: C++ works (cachewise %s, %s)\n", cw_version(), cw_impl_name());
    return 0;
}
