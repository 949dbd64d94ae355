// NCCL communicators over a group's logical GPUs (one per distinct physical GPU), grouped calls on
// each rank's stream, and a wait that turns NCCL's asynchronous errors and hangs into messages
// naming the device. Compiled in every CUDA build; without NCCL every call says it is not built in.
#include "nccl_bridge.h"

#include "cuda_device.cuh"

#include <chrono>
#include <set>
#include <thread>
#include <vector>

#if defined(DISTLAB_HAVE_NCCL)
#include <nccl.h>
#endif

using namespace distlab_cuda;

#if defined(DISTLAB_HAVE_NCCL)

struct DistlabNcclGroup {
    std::vector<DistlabCudaDevice*> devices;
    std::vector<ncclComm_t> comms;
    std::vector<cudaEvent_t> done;  // each rank's end of its last NCCL call
    bool aborted = false;
};

namespace {

int ncclFail(char* message, const DistlabCudaDevice* device, const char* what, ncclResult_t result, ncclComm_t comm) {
    char cause[DISTLAB_CUDA_MESSAGE_SIZE];
    const char* last = comm != nullptr ? ncclGetLastError(comm) : nullptr;
    if (last != nullptr && *last != '\0')
        std::snprintf(cause, sizeof cause, "NCCL: %s (%s)", ncclGetErrorString(result), last);
    else
        std::snprintf(cause, sizeof cause, "NCCL: %s", ncclGetErrorString(result));
    return fail(message, device, DISTLAB_NCCL_FAILED, what, cause);
}

int checkNccl(ncclResult_t result, char* message, const DistlabCudaDevice* device, const char* what, ncclComm_t comm) {
    return result == ncclSuccess ? 0 : ncclFail(message, device, what, result, comm);
}

int checkRanks(DistlabNcclGroup* group, const int* ranks, int listed, char* message) {
    for (int i = 0; i < listed; ++i)
        if (ranks[i] < 0 || ranks[i] >= static_cast<int>(group->devices.size()))
            return fail(message, group->devices.front(), DISTLAB_CUDA_BAD_ARGUMENT, "nccl", "no such rank");
    if (group->aborted) return fail(message, group->devices.front(), DISTLAB_NCCL_FAILED, "nccl", "the communicators were aborted");
    return 0;
}

// Marks each listed rank's end of the call just queued, for distlabNcclWait.
int markDone(DistlabNcclGroup* group, const int* ranks, int listed, char* message) {
    for (int i = 0; i < listed; ++i) {
        DistlabCudaDevice* device = group->devices[static_cast<std::size_t>(ranks[i])];
        const int code =
            check(cudaEventRecord(group->done[static_cast<std::size_t>(ranks[i])], device->stream), message, device, "nccl done event");
        if (code != 0) return code;
    }
    return 0;
}

}  // namespace

extern "C" {

int distlabNcclBuiltIn(void) { return 1; }

int distlabNcclOpen(DistlabCudaDevice* const* devices, int ranks, DistlabNcclGroup** group, char* message) {
    *group = nullptr;
    if (ranks <= 0) return fail(message, nullptr, DISTLAB_CUDA_BAD_ARGUMENT, "nccl", "no ranks");
    std::set<int> physical;
    std::vector<int> ordinals;
    for (int r = 0; r < ranks; ++r) {
        if (!physical.insert(devices[r]->physical).second)
            return fail(message, devices[r], DISTLAB_CUDA_BAD_ARGUMENT, "nccl",
                        "two ranks on one physical GPU (NCCL refuses that; logical GPUs of one GPU use the ring)");
        ordinals.push_back(devices[r]->physical);
    }
    auto* opened = new DistlabNcclGroup;
    opened->devices.assign(devices, devices + ranks);
    opened->comms.assign(static_cast<std::size_t>(ranks), nullptr);
    opened->done.assign(static_cast<std::size_t>(ranks), nullptr);
    int code = checkNccl(ncclCommInitAll(opened->comms.data(), ranks, ordinals.data()), message, devices[0],
                         "cannot create the NCCL communicators", nullptr);
    for (int r = 0; r < ranks && code == 0; ++r) {
        cudaSetDevice(devices[r]->physical);
        code = check(cudaEventCreateWithFlags(&opened->done[static_cast<std::size_t>(r)], cudaEventDisableTiming), message, devices[r],
                     "cannot create an event");
    }
    if (code != 0) {
        distlabNcclClose(opened);
        return code;
    }
    *group = opened;
    return 0;
}

void distlabNcclClose(DistlabNcclGroup* group) {
    if (group == nullptr) return;
    for (std::size_t r = 0; r < group->comms.size(); ++r) {
        if (group->comms[r] == nullptr) continue;
        if (group->aborted) continue;  // ncclCommAbort already freed them
        ncclCommDestroy(group->comms[r]);
    }
    for (std::size_t r = 0; r < group->done.size(); ++r)
        if (group->done[r] != nullptr) cudaEventDestroy(group->done[r]);
    delete group;
}

int distlabNcclAllReduce(DistlabNcclGroup* group, const int* ranks, float* const* buffers, int listed, long long count, int mean,
                         char* message) {
    int code = checkRanks(group, ranks, listed, message);
    if (code != 0 || count <= 0) return code;
    // Several ranks from one thread must be one group call, or the first call would wait for
    // peers that the same thread has not queued yet.
    code = checkNccl(ncclGroupStart(), message, group->devices[static_cast<std::size_t>(ranks[0])], "all-reduce", nullptr);
    for (int i = 0; i < listed && code == 0; ++i) {
        const auto r = static_cast<std::size_t>(ranks[i]);
        code = checkNccl(ncclAllReduce(buffers[i], buffers[i], static_cast<size_t>(count), ncclFloat32, mean ? ncclAvg : ncclSum,
                                       group->comms[r], group->devices[r]->stream),
                         message, group->devices[r], "all-reduce", group->comms[r]);
    }
    const int end = checkNccl(ncclGroupEnd(), message, group->devices[static_cast<std::size_t>(ranks[0])], "all-reduce",
                              group->comms[static_cast<std::size_t>(ranks[0])]);
    if (code == 0) code = end;
    return code != 0 ? code : markDone(group, ranks, listed, message);
}

int distlabNcclBroadcast(DistlabNcclGroup* group, const int* ranks, float* const* buffers, int listed, long long count, int root,
                         char* message) {
    int code = checkRanks(group, ranks, listed, message);
    if (code != 0 || count <= 0) return code;
    code = checkNccl(ncclGroupStart(), message, group->devices[static_cast<std::size_t>(ranks[0])], "broadcast", nullptr);
    for (int i = 0; i < listed && code == 0; ++i) {
        const auto r = static_cast<std::size_t>(ranks[i]);
        code = checkNccl(ncclBroadcast(buffers[i], buffers[i], static_cast<size_t>(count), ncclFloat32, root, group->comms[r],
                                       group->devices[r]->stream),
                         message, group->devices[r], "broadcast", group->comms[r]);
    }
    const int end = checkNccl(ncclGroupEnd(), message, group->devices[static_cast<std::size_t>(ranks[0])], "broadcast",
                              group->comms[static_cast<std::size_t>(ranks[0])]);
    if (code == 0) code = end;
    return code != 0 ? code : markDone(group, ranks, listed, message);
}

int distlabNcclPoll(DistlabNcclGroup* group, int rank, char* message) {
    int code = checkRanks(group, &rank, 1, message);
    if (code != 0) return -code;
    const auto r = static_cast<std::size_t>(rank);
    DistlabCudaDevice* device = group->devices[r];
    const cudaError_t state = cudaEventQuery(group->done[r]);
    if (state == cudaSuccess) return 1;
    if (state != cudaErrorNotReady) return -check(state, message, device, "waiting for NCCL");
    ncclResult_t asyncError = ncclSuccess;
    code = checkNccl(ncclCommGetAsyncError(group->comms[r], &asyncError), message, device, "NCCL state", group->comms[r]);
    if (code != 0) return -code;
    if (asyncError != ncclSuccess && asyncError != ncclInProgress)
        return -ncclFail(message, device, "NCCL asynchronous error", asyncError, group->comms[r]);
    return 0;
}

int distlabNcclWait(DistlabNcclGroup* group, int rank, long long timeoutMs, char* message) {
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        const int state = distlabNcclPoll(group, rank, message);
        if (state == 1) return 0;
        if (state < 0) return -state;
        DistlabCudaDevice* device = group->devices[static_cast<std::size_t>(rank)];
        const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
        if (timeoutMs > 0 && waited >= timeoutMs) {
            // A rank that never arrives would hang every stream: abort them all so the run can stop.
            for (ncclComm_t comm : group->comms) ncclCommAbort(comm);
            group->aborted = true;
            char cause[DISTLAB_CUDA_MESSAGE_SIZE];
            std::snprintf(cause, sizeof cause, "NCCL work not finished after %lld ms; the communicators were aborted", timeoutMs);
            return fail(message, device, DISTLAB_NCCL_TIMED_OUT, "timed out", cause);
        }
        std::this_thread::sleep_for(std::chrono::microseconds(waited < 10 ? 20 : 1000));
    }
}

}  // extern "C"

#else  // no NCCL

struct DistlabNcclGroup {};

namespace {
int notBuilt(char* message, DistlabCudaDevice* device) {
    return fail(message, device, DISTLAB_NCCL_NOT_BUILT, "nccl", "NCCL is not built into this distlab");
}
}  // namespace

extern "C" {
int distlabNcclBuiltIn(void) { return 0; }
int distlabNcclOpen(DistlabCudaDevice* const* devices, int ranks, DistlabNcclGroup** group, char* message) {
    *group = nullptr;
    return notBuilt(message, ranks > 0 ? devices[0] : nullptr);
}
void distlabNcclClose(DistlabNcclGroup*) {}
int distlabNcclAllReduce(DistlabNcclGroup*, const int*, float* const*, int, long long, int, char* message) {
    return notBuilt(message, nullptr);
}
int distlabNcclBroadcast(DistlabNcclGroup*, const int*, float* const*, int, long long, int, char* message) {
    return notBuilt(message, nullptr);
}
int distlabNcclWait(DistlabNcclGroup*, int, long long, char* message) { return notBuilt(message, nullptr); }
int distlabNcclPoll(DistlabNcclGroup*, int, char* message) { return -notBuilt(message, nullptr); }
}  // extern "C"

#endif
