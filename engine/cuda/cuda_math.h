#ifndef DISTLAB_CUDA_MATH_H
#define DISTLAB_CUDA_MATH_H
/* The GPU side of the tensor core, behind a plain C bridge like device_query.h: one logical GPU's
 * stream, cuBLAS handle and caching allocator, and the dense layer's math on it. The engine's C++20
 * sources and the tests include this header; only the CUDA sources include CUDA's.
 *
 * Every function returns 0 on success, else a nonzero code with a message in `message` (at most
 * DISTLAB_CUDA_MESSAGE_SIZE bytes, always terminated) that names the device and the cause. Work is
 * queued on the device's stream and runs in order; distlabCudaSynchronize waits for it. */

#ifdef __cplusplus
extern "C" {
#endif

#define DISTLAB_CUDA_MESSAGE_SIZE 512

/* Codes besides the CUDA runtime's own (cudaError_t values are passed through). */
#define DISTLAB_CUDA_OUT_OF_MEMORY 100001 /* the logical device's limit or the GPU's memory is exhausted */
#define DISTLAB_CUDA_CUBLAS_FAILED 100002
#define DISTLAB_CUDA_BAD_ARGUMENT 100003

typedef struct DistlabCudaDevice DistlabCudaDevice;

typedef struct DistlabCudaMemoryStats {
    unsigned long long liveBytes;   /* handed out and not yet given back */
    unsigned long long peakBytes;   /* the most live at once */
    unsigned long long cachedBytes; /* given back, kept for reuse (counts against the limit) */
    unsigned long long limitBytes;  /* the logical device's memory limit; 0: the whole GPU */
} DistlabCudaMemoryStats;

/* Opens logical GPU `logicalIndex` ("gpu:K" in messages) on physical device `physicalIndex` with a
 * memory limit (0: none): its own stream and cuBLAS handle (TF32 off: float32 products are
 * float32). */
int distlabCudaOpen(int logicalIndex, int physicalIndex, unsigned long long limitBytes, DistlabCudaDevice** device, char* message);
/* Makes the device's physical GPU the calling thread's current one. Kernels, cuBLAS and events
 * work only on the current GPU, so a thread that queues work for logical GPUs on several physical
 * GPUs (NCCL runs) calls this before each one's work; cheap when it already is. */
int distlabCudaMakeCurrent(DistlabCudaDevice* device, char* message);
/* Waits for the device's work, frees its cache and closes it. Null is allowed. */
void distlabCudaClose(DistlabCudaDevice* device);

/* Device memory from the caching allocator (256-byte aligned). Out of memory names the device,
 * the bytes asked for and what is free. */
int distlabCudaAllocate(DistlabCudaDevice* device, unsigned long long bytes, void** pointer, char* message);
/* Gives a block back to the cache (stream-ordered: reused only by later work on the stream). */
void distlabCudaRelease(DistlabCudaDevice* device, void* pointer);
void distlabCudaMemory(const DistlabCudaDevice* device, DistlabCudaMemoryStats* stats);

int distlabCudaUpload(DistlabCudaDevice* device, void* destination, const void* source, unsigned long long bytes, char* message);
int distlabCudaDownload(DistlabCudaDevice* device, void* destination, const void* source, unsigned long long bytes, char* message);
int distlabCudaSynchronize(DistlabCudaDevice* device, char* message);
/* Sets `bytes` bytes of device memory to zero (queued on the stream). */
int distlabCudaZero(DistlabCudaDevice* device, void* destination, unsigned long long bytes, char* message);

/* Ring all-reduce (SUM, or MEAN when `mean` is nonzero) of one buffer per rank, the ranks logical
 * GPUs of one physical GPU (NCCL refuses two ranks on one GPU): each rank's steps run on its own
 * stream, a rank's step waiting for its predecessor's previous step by an event, as the CPU ring of
 * engine/src/comm/in_process_algorithms.cpp does with progress counters. The chunks, segments and
 * order of additions are the CPU ring's, so the results are the same bits. Queued on the streams;
 * each rank's stream goes on only once its successor has read its buffer for the last time. */
int distlabCudaRingAllReduce(DistlabCudaDevice* const* devices, float* const* buffers, int ranks, long long count, int mean, char* message);

/* A point on a device's stream: done once the work queued before it is. */
typedef struct DistlabCudaEvent DistlabCudaEvent;
int distlabCudaRecord(DistlabCudaDevice* device, DistlabCudaEvent** event, char* message);
/* 1 when done, 0 when not yet, negative on an error (then `message` says which). Never blocks. */
int distlabCudaEventDone(DistlabCudaEvent* event, char* message);
/* Blocks until done. */
int distlabCudaEventWait(DistlabCudaEvent* event, char* message);
void distlabCudaEventDestroy(DistlabCudaEvent* event);
/* Queues on `device`'s stream a wait for `event` (recorded on another logical GPU's stream). */
int distlabCudaStreamWait(DistlabCudaDevice* device, DistlabCudaEvent* event, char* message);
/* Queues a device-to-device copy on `device`'s stream. */
int distlabCudaCopy(DistlabCudaDevice* device, void* destination, const void* source, unsigned long long bytes, char* message);

/* CUDA graphs: the work queued between BeginCapture and EndCapture is recorded, not run, and a
 * launch replays all of it at once, so a small model's step is not bound by launch overhead.
 * Nothing may be allocated while capturing (allocate first); the graph reads and writes the same
 * device addresses on every launch (upload new inputs into them before launching). */
typedef struct DistlabCudaGraph DistlabCudaGraph;
int distlabCudaBeginCapture(DistlabCudaDevice* device, char* message);
int distlabCudaEndCapture(DistlabCudaDevice* device, DistlabCudaGraph** graph, char* message);
int distlabCudaLaunch(DistlabCudaDevice* device, const DistlabCudaGraph* graph, char* message);
void distlabCudaDestroyGraph(DistlabCudaGraph* graph);
/* Ends a capture that failed half-way (a queued call returned an error) and drops what it
 * recorded, so the stream runs work eagerly again. 0 when no capture was active. */
int distlabCudaAbortCapture(DistlabCudaDevice* device);

/* Timing points on a device's stream: mark point p when the work queued before it is done (in a
 * capture, the mark becomes a node of the graph and is recorded on every launch); after the stream
 * has passed them, the milliseconds from point 0 to each of points 0 .. points-1. */
typedef struct DistlabCudaTimer DistlabCudaTimer;
int distlabCudaTimerCreate(DistlabCudaDevice* device, int points, DistlabCudaTimer** timer, char* message);
void distlabCudaTimerDestroy(DistlabCudaTimer* timer);
int distlabCudaTimerMark(DistlabCudaTimer* timer, int point, char* message);
int distlabCudaTimerElapsed(DistlabCudaTimer* timer, float* milliseconds, int points, char* message);

/* Activations in the engine's order (Activation in run_config.hpp): 0 linear, 1 relu, 2 tanh,
 * 3 sigmoid, 4 gelu (exact, with erf). */

/* Dense layer forward, row-major, as the CPU kernels: z = x w + b, y = act(z).
 * x [rows, inputs], w [inputs, units], b [units], z and y [rows, units] (y may equal z for linear). */
int distlabCudaDenseForward(DistlabCudaDevice* device, const float* x, const float* w, const float* b, float* z, float* y, long long rows,
                            long long inputs, long long units, int activation, char* message);
/* Dense layer backward: dz = dy * act'(z), dw += x^T dz, db += column sums of dz (in row order),
 * dx = dz w^T when dx is not null. */
int distlabCudaDenseBackward(DistlabCudaDevice* device, const float* x, const float* w, const float* z, const float* y, const float* dy,
                             float* dz, float* dw, float* db, float* dx, long long rows, long long inputs, long long units, int activation,
                             char* message);
/* 16-bit compute. `half` is 1 for float16, 2 for bfloat16 (IEEE binary16 and bfloat16 as the
 * engine's dtype.hpp converts them: round to nearest even). */
int distlabCudaToHalf(DistlabCudaDevice* device, int half, const float* source, void* destination, long long count, char* message);
int distlabCudaFromHalf(DistlabCudaDevice* device, int half, const void* source, float* destination, long long count, char* message);
/* The dense forward on tensor cores: x [rows, inputs] and w [inputs, units] in 16 bits, the
 * product accumulated in float32 (as mixed precision computes), z = x w + b and y = act(z) in
 * float32. */
int distlabCudaDenseForwardHalf(DistlabCudaDevice* device, int half, const void* x, const void* w, const float* b, float* z, float* y,
                                long long rows, long long inputs, long long units, int activation, char* message);

/* The dense backward on tensor cores: dz = dy * act'(z) in float32 (and rounded to 16 bits into
 * `dz16`, [rows, units], for the products), dw += x^T dz and dx = dz w^T (when dx is not null) from
 * 16-bit operands with float32 accumulation, db += column sums of the float32 dz. */
int distlabCudaDenseBackwardHalf(DistlabCudaDevice* device, int half, const void* x, const void* w, const float* z, const float* y,
                                 const float* dy, float* dz, void* dz16, float* dw, float* db, float* dx, long long rows, long long inputs,
                                 long long units, int activation, char* message);

/* The optimizers, each one kernel over every parameter at once, as engine/src/optim computes them.
 * SGD: values -= rate * grads; with momentum mu (velocity not null): b = mu b + g, then
 * values -= rate * b (nesterov: rate * (g + mu b)). */
int distlabCudaSgd(DistlabCudaDevice* device, float* values, const float* grads, float* velocity, long long count, float rate,
                   float momentum, int nesterov, char* message);
/* Adam: m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2; values -= stepSize m / (sqrt(v) invSecondCorrection + eps),
 * with stepSize = rate / (1 - b1^t) and invSecondCorrection = 1 / sqrt(1 - b2^t) computed by the caller. */
int distlabCudaAdam(DistlabCudaDevice* device, float* values, const float* grads, float* m, float* v, long long count, float stepSize,
                    float invSecondCorrection, float beta1, float beta2, float epsilon, char* message);

/* The same updates with their per-step scalars read from device memory when the kernel runs
 * (uploaded before each step), so a step captured once in a graph applies each step's learning
 * rate and Adam's bias corrections on every replay; the same arithmetic, bit for bit.
 * SGD: scalars[0] = rate. Adam: scalars[0] = stepSize, scalars[1] = invSecondCorrection. */
int distlabCudaSgdFrom(DistlabCudaDevice* device, float* values, const float* grads, float* velocity, long long count, const float* scalars,
                       float momentum, int nesterov, char* message);
int distlabCudaAdamFrom(DistlabCudaDevice* device, float* values, const float* grads, float* m, float* v, long long count,
                        const float* scalars, float beta1, float beta2, float epsilon, char* message);

/* What a step reads back instead of the whole model. Gather: destination[i] = source[indices[i]]
 * for i < count, 0 where indices[i] < 0 (all device memory): the watched values. SumSquares:
 * *result (device memory) = the sum of values[i]^2 in double, added in a fixed order (fixed blocks,
 * then their partial sums in order), so every launch gives the same bits: a gradient's norm. */
int distlabCudaGather(DistlabCudaDevice* device, const float* source, const long long* indices, float* destination, long long count,
                      char* message);
int distlabCudaSumSquares(DistlabCudaDevice* device, const float* values, long long count, double* result, char* message);

/* The losses, per example (rowLoss[r], the caller sums them) with the gradient scaled by `scale`:
 * softmax cross-entropy with int32 labels (rowCorrect[r] = 1 when the arg-max is the label), and
 * mean squared error with the mean over the outputs per example (Keras' convention). */
int distlabCudaSoftmaxCrossEntropy(DistlabCudaDevice* device, const float* logits, const int* labels, float* dlogits, float* rowLoss,
                                   int* rowCorrect, long long rows, long long classes, float scale, char* message);
int distlabCudaMeanSquaredError(DistlabCudaDevice* device, const float* predictions, const float* targets, float* dpredictions,
                                float* rowLoss, long long rows, long long outputs, float scale, char* message);

#ifdef __cplusplus
}
#endif

#endif /* DISTLAB_CUDA_MATH_H */
