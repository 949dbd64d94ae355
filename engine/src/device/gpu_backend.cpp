#include "device/gpu_backend.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#ifndef DISTLAB_VERSION
#define DISTLAB_VERSION "unknown"
#endif

namespace distlab {
namespace {

/// The folder of this process's executable; empty where /proc is missing.
std::filesystem::path executableFolder() {
    std::error_code error;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    return error ? std::filesystem::path() : self.parent_path();
}

std::string notFound(const std::vector<std::string>& places) {
#if defined(DISTLAB_GPU_BACKEND_BUILD_PATH)
    std::string looked;
    for (const std::string& place : places) looked += (looked.empty() ? "" : ", ") + place;
    return std::string("the CUDA backend module (") + kGpuBackendFile + ") is not installed: looked for " + looked;
#else
    (void)places;
    return "this distlab was built without CUDA (no toolkit was found when it was configured), so it has no CUDA "
           "backend module; use cpu:K devices";
#endif
}

}  // namespace

std::vector<std::string> gpuBackendCandidates() {
    if (const char* chosen = std::getenv("DISTLAB_GPU_BACKEND"); chosen != nullptr && *chosen != '\0') return {chosen};
    std::vector<std::string> places;
    if (const std::filesystem::path folder = executableFolder(); !folder.empty()) {
        places.push_back((folder / kGpuBackendFile).string());
#if defined(DISTLAB_GPU_BACKEND_INSTALL_DIR)
        places.push_back((folder / ".." / DISTLAB_GPU_BACKEND_INSTALL_DIR / kGpuBackendFile).lexically_normal().string());
#endif
    }
#if defined(DISTLAB_GPU_BACKEND_BUILD_PATH)
    places.emplace_back(DISTLAB_GPU_BACKEND_BUILD_PATH);
#endif
    return places;
}

GpuBackend loadGpuBackend(const std::string& path) {
    GpuBackend backend;
    backend.module = path;
    void* library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
        const char* reason = ::dlerror();
        backend.whyNot = "the CUDA backend module " + path + " could not be loaded: " + (reason ? reason : "unknown error") +
                         " (it needs NVIDIA's CUDA runtime, cuBLAS and NCCL, from the CUDA toolkit, on the library path)";
        return backend;
    }
    using Entry = const GpuBackendApi* (*)();
    const auto entry = reinterpret_cast<Entry>(::dlsym(library, kGpuBackendEntry));
    const GpuBackendApi* api = entry != nullptr ? entry() : nullptr;
    if (api == nullptr) {
        backend.whyNot = "the CUDA backend module " + path + " has no " + kGpuBackendEntry + " table: not a DistLab module";
    } else if (api->abi != kGpuBackendAbi || std::strcmp(api->version, DISTLAB_VERSION) != 0) {
        backend.whyNot = "the CUDA backend module " + path + " is of another build (version " + api->version + ", ABI " +
                         std::to_string(api->abi) + "; this program is " DISTLAB_VERSION ", ABI " + std::to_string(kGpuBackendAbi) + ")";
    } else {
        backend.api = api;
        backend.library = library;
        return backend;  // stays loaded for the life of the process
    }
    ::dlclose(library);
    return backend;
}

const GpuBackend& gpuBackend() {
    static const GpuBackend loaded = [] {
        const std::vector<std::string> places = gpuBackendCandidates();
        for (const std::string& place : places) {
            std::error_code error;
            if (std::filesystem::exists(place, error)) return loadGpuBackend(place);
        }
        GpuBackend none;
        none.whyNot = notFound(places);
        return none;
    }();
    return loaded;
}

}  // namespace distlab
