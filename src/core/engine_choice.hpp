// engine_choice.hpp — which engine measures a file: the user's choice
// (cachectl.os_engine) resolved against what this system can do.
#pragma once
#include "server_free.hpp"

namespace pg_cachectl {

enum class EngineChoice { automatic, cachestat, mincore };
enum class Engine { cachestat, mincore };

// Automatic picks cachestat unless the kernel lacks it, a seccomp filter
// refuses it, or fd is on overlayfs (where cachestat reports nothing cached).
// A forced cachestat that cannot work throws NotSupported.
Engine choose_engine(EngineChoice choice, int fd);

} // namespace pg_cachectl
