#ifndef DISTLAB_NCCL_BRIDGE_H
#define DISTLAB_NCCL_BRIDGE_H
/* NCCL between distinct physical GPUs, behind the same plain C bridge as cuda_math.h (the engine's
 * C++20 sources never include nccl.h). One communicator per logical GPU of a group, created
 * together (ncclCommInitAll) over their physical GPUs, which must be distinct: NCCL refuses two
 * ranks on one GPU (logical GPUs of one physical GPU use distlabCudaRingAllReduce instead).
 * Functions return 0 or a nonzero code with a message naming the device and the cause; without
 * NCCL built in every call returns DISTLAB_NCCL_NOT_BUILT. */

#include "cuda_math.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DISTLAB_NCCL_NOT_BUILT 100101 /* this distlab was built without NCCL */
#define DISTLAB_NCCL_FAILED 100102    /* an NCCL call or an asynchronous NCCL error; the message has NCCL's words */
#define DISTLAB_NCCL_TIMED_OUT 100103 /* the work did not finish in time; the communicators were aborted */

typedef struct DistlabNcclGroup DistlabNcclGroup;

/* 1 when NCCL is built in. */
int distlabNcclBuiltIn(void);

/* One communicator per device, rank r on devices[r] (its physical GPU; distinct for every rank). */
int distlabNcclOpen(DistlabCudaDevice* const* devices, int ranks, DistlabNcclGroup** group, char* message);
/* Destroys the communicators (after aborting them when a wait timed out). Null is allowed. */
void distlabNcclClose(DistlabNcclGroup* group);

/* All-reduce (SUM, or MEAN when `mean` is nonzero: ncclAvg) of `count` floats in each listed
 * rank's buffer (device memory of its logical GPU), each on its device's stream, inside one
 * ncclGroupStart/ncclGroupEnd: one thread may queue every rank at once, or each rank's own thread
 * its own (`listed` 1). buffers[i] belongs to ranks[i]. Queued; distlabNcclWait waits for it. */
int distlabNcclAllReduce(DistlabNcclGroup* group, const int* ranks, float* const* buffers, int listed, long long count, int mean,
                         char* message);
/* Broadcast of `count` floats from rank `root`'s buffer to every listed rank's, grouped as above. */
int distlabNcclBroadcast(DistlabNcclGroup* group, const int* ranks, float* const* buffers, int listed, long long count, int root,
                         char* message);

/* Waits until rank `rank`'s stream has passed its last queued NCCL call, polling the communicator's
 * asynchronous error; an error fails with NCCL's words; past `timeoutMs` (0: no limit) every
 * communicator of the group is aborted (ncclCommAbort: a peer that never arrives cannot hang the
 * run) and the call fails with DISTLAB_NCCL_TIMED_OUT naming the device. */
int distlabNcclWait(DistlabNcclGroup* group, int rank, long long timeoutMs, char* message);
/* Never blocks: 1 when rank `rank`'s last NCCL call is done, 0 when not yet, negative on an error
 * (an asynchronous NCCL error included; then `message` says which). */
int distlabNcclPoll(DistlabNcclGroup* group, int rank, char* message);

#ifdef __cplusplus
}
#endif

#endif /* DISTLAB_NCCL_BRIDGE_H */
