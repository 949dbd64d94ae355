#pragma once
// Finds and loads the CUDA backend module (gpu_backend_api.hpp) the first time a GPU is asked for:
// a device report, a plan or a trainer on gpu:K. Never before: CUDA's libraries take hundreds of
// megabytes and most of a second to map, and a machine without them must still run everything else.
#include <string>
#include <vector>

#include "device/gpu_backend_api.hpp"

namespace distlab {

struct GpuBackend {
    const GpuBackendApi* api = nullptr;  ///< null where the module did not load
    void* library = nullptr;             ///< its dlopen handle, for the module's other tables; null where it did not load
    std::string module;                  ///< the module's path: loaded, or the one that failed; empty if none was found
    std::string whyNot;                  ///< why it did not load (a sentence naming the file and dlerror's text); empty once loaded
};

/// Loads the module at the first call (once per process; any thread) and returns the outcome. The
/// first file of gpuBackendCandidates() that exists is loaded; none existing is a reason too.
const GpuBackend& gpuBackend();

/// Where the module is looked for, in order: $DISTLAB_GPU_BACKEND alone where it is set (a file;
/// tests and unusual installs), else beside the executable, in the package's lib folder relative to
/// it (../lib/<multiarch>/distlab/, as the .deb installs it), and where this build made it.
std::vector<std::string> gpuBackendCandidates();

/// Loads the module at `path` and checks its table: the outcome, with the reason where it did not
/// load. Each call is a new dlopen (the same handle where the file is already loaded).
GpuBackend loadGpuBackend(const std::string& path);

}  // namespace distlab
