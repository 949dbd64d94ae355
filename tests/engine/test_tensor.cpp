// Tensors with a dtype and a device: sizes, 16-bit and int32 storage, the dtype checks, capacity
// kept on resize, memory counted on the tensor's own device, GPU devices refused, views and slices
// that share memory, and the one device type (Device, alias DeviceName).
#include <QtTest>

#include <cstring>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>

#include "allocation_counter.hpp"
#include "distlab/config/run_config.hpp"
#include "distlab/tensor/tensor.hpp"

using namespace distlab;

namespace {

template <typename F>
std::string thrownMessage(F&& f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

}  // namespace

class TestTensor : public QObject {
    Q_OBJECT
private slots:
    void newTensorsSayTheirDTypeDeviceAndBytes() {
        const Tensor empty;
        QCOMPARE(empty.size(), std::int64_t{0});
        QCOMPARE(empty.bytes(), std::int64_t{0});
        QVERIFY(empty.dtype() == DType::Float32);
        QVERIFY(empty.device() == Device::cpu(0));
        QVERIFY(empty.data() == nullptr);

        const Tensor f32({2, 3});
        QVERIFY(f32.dtype() == DType::Float32);
        QVERIFY(f32.device() == Device::cpu(0));
        QCOMPARE(f32.bytes(), std::int64_t{24});
        QCOMPARE(f32.rows(), std::int64_t{2});
        QCOMPARE(f32.cols(), std::int64_t{3});
        for (float v : f32.values()) QCOMPARE(v, 0.0f);
        QCOMPARE(reinterpret_cast<std::uintptr_t>(f32.data()) % 64, std::uintptr_t{0});

        const Tensor f16({4, 5}, DType::Float16, Device::cpu(1));
        QVERIFY(f16.dtype() == DType::Float16);
        QVERIFY(f16.device() == Device::cpu(1));
        QCOMPARE(f16.size(), std::int64_t{20});
        QCOMPARE(f16.bytes(), std::int64_t{40});
        QCOMPARE(reinterpret_cast<std::uintptr_t>(f16.rawData()) % 64, std::uintptr_t{0});
        const Tensor bf16({3}, DType::BFloat16, Device::cpu(0));
        QCOMPARE(bf16.bytes(), std::int64_t{6});
        const Tensor i32({2, 2}, DType::Int32, Device::cpu(2));
        QCOMPARE(i32.bytes(), std::int64_t{16});
        for (int i = 0; i < 4; ++i) QCOMPARE(i32.data<std::int32_t>()[i], 0);

        const Tensor values({2, 2}, {1.0f, 2.0f, 3.0f, 4.0f});
        QCOMPARE(values[3], 4.0f);
        QVERIFY(values.device() == Device::cpu(0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Tensor({2, 2}, std::vector<float>{1.0f}));

        {
            // Without a device, a tensor is on the building thread's memory device.
            const DeviceMemoryScope scope(5);
            QVERIFY(currentCpuDevice() == Device::cpu(5));
            QVERIFY(Tensor({2}).device() == Device::cpu(5));
            QVERIFY(Tensor().device() == Device::cpu(5));
        }
        QVERIFY(Tensor({2}).device() == Device::cpu(0));
    }

    void sixteenBitTensorsStoreBits() {
        const float exact[] = {1.0f, -2.0f, 0.5f, 0.0f};
        for (DType dtype : {DType::Float16, DType::BFloat16}) {
            Tensor t({2, 2}, dtype, Device::cpu(0));
            std::uint16_t* bits = t.data<std::uint16_t>();
            narrow16(dtype, exact, bits, 4);
            QCOMPARE(bits[0], dtype == DType::Float16 ? std::uint16_t{0x3C00} : std::uint16_t{0x3F80});
            QCOMPARE(bits[1], dtype == DType::Float16 ? floatToHalf(-2.0f) : floatToBfloat16(-2.0f));
            float back[4] = {};
            widen16(dtype, t.data<std::uint16_t>(), back, 4);
            for (int i = 0; i < 4; ++i) QCOMPARE(back[i], exact[i]);
            // 1/3 rounds to the dtype's nearest value and stays that value.
            bits[0] = dtype == DType::Float16 ? floatToHalf(1.0f / 3.0f) : floatToBfloat16(1.0f / 3.0f);
            const float third = dtype == DType::Float16 ? halfToFloat(bits[0]) : bfloat16ToFloat(bits[0]);
            QCOMPARE(third, dtype == DType::Float16 ? 0.333251953125f : 0.333984375f);

            const BufferView buffer = t.buffer();
            QVERIFY(buffer.dtype == dtype);
            QCOMPARE(buffer.count, std::int64_t{4});
            QCOMPARE(buffer.bytes(), std::int64_t{8});
            QVERIFY(buffer.data == t.rawData());
            QCOMPARE(buffer.as16()[1], bits[1]);

            const Tensor copy = t;
            QVERIFY(copy.dtype() == dtype);
            QCOMPARE(std::memcmp(copy.rawData(), t.rawData(), 8), 0);
        }
    }

    void int32Tensors() {
        Tensor t({3}, DType::Int32, Device::cpu(0));
        std::int32_t* values = t.data<std::int32_t>();
        values[0] = -7;
        values[2] = 1 << 30;
        const Tensor& constant = t;
        QCOMPARE(constant.data<std::int32_t>()[0], -7);
        const BufferView buffer = t.buffer();
        QVERIFY(buffer.dtype == DType::Int32);
        QCOMPARE(buffer.count, std::int64_t{3});
        QCOMPARE(buffer.bytes(), std::int64_t{12});
        QCOMPARE(buffer.asInt32()[2], 1 << 30);
        std::int32_t raw[2] = {1, 2};
        QVERIFY(BufferView(std::span<std::int32_t>(raw)).dtype == DType::Int32);
        t.resize({5});  // grows, keeps the first elements, zeroes the new ones
        QCOMPARE(t.data<std::int32_t>()[0], -7);
        QCOMPARE(t.data<std::int32_t>()[4], 0);
        t.setZero();
        QCOMPARE(t.data<std::int32_t>()[0], 0);
    }

    void typedAccessChecksTheDTypeInEveryBuild() {
        // data<T>() / values<T>() / [] refuse a T that is not how the dtype is stored, in this
        // Release build as in a debug one: float access of a float16 tensor would read twice its
        // storage.
        Tensor f32({2}, DType::Float32, Device::cpu(0));
        QVERIFY(f32.data<float>() == f32.data());
        QCOMPARE(f32.values().size(), std::size_t{2});
        f32.values()[1] = 2.5f;
        QCOMPARE(f32[1], 2.5f);
        QCOMPARE(std::as_const(f32).view().values<float>()[1], 2.5f);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, f32.data<std::uint16_t>());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, f32.values<std::int32_t>());
        Tensor f16({2}, DType::Float16, Device::cpu(0));
        QCOMPARE(f16.values<std::uint16_t>().size(), std::size_t{2});
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, f16.values());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, std::as_const(f16).values<float>());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, f16.data());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, f16[0]);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, f16.view().values());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, ConstTensorView(f16).data());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, f16.data<std::int32_t>());
        QCOMPARE(QString::fromStdString(thrownMessage([&] { f16.values(); })),
                 QStringLiteral("Tensor::data<float>: float16 elements are stored as std::uint16_t, not float"));
        const Tensor bf16({2}, DType::BFloat16, Device::cpu(0));
        QVERIFY(bf16.data<std::uint16_t>() != nullptr);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, bf16.data<float>());
        Tensor i32({2}, DType::Int32, Device::cpu(0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, i32.data<float>());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, i32.view().data<std::uint16_t>());
        QCOMPARE(QString::fromStdString(thrownMessage([&] { i32.data<float>(); })),
                 QStringLiteral("Tensor::data<float>: int32 elements are stored as std::int32_t, not float"));
    }

    void resize2dKeepsTheCapacity() {
        constexpr int kDevice = 7;  // this test's own device: nothing else allocates for it
        Tensor t({0}, DType::Float32, Device::cpu(kDevice));
        QCOMPARE(t.capacityBytes(), std::size_t{0});
        const std::int64_t before = deviceMemory(kDevice).allocations;
        t.resize2d(8, 16);
        QCOMPARE(deviceMemory(kDevice).allocations, before + 1);
        QCOMPARE(t.capacityBytes(), std::size_t{8 * 16 * 4});
        for (std::int64_t i = 0; i < t.size(); ++i) t[i] = static_cast<float>(i);
        const float* data = t.data();

        g_allocations = 0;
        g_countAllocations = true;
        t.resize2d(4, 4);
        t.resize2d(16, 8);
        t.resize2d(1, 128);
        t.resize2d(8, 16);
        g_countAllocations = false;
        QCOMPARE(g_allocations.load(), 0L);
        QCOMPARE(deviceMemory(kDevice).allocations, before + 1);
        QCOMPARE(t.capacityBytes(), std::size_t{8 * 16 * 4});
        QVERIFY(t.data() == data);
        QCOMPARE(t[127], 127.0f);  // shrinking and growing within the capacity keeps the elements

        t.resize({2, 64});
        QCOMPARE(deviceMemory(kDevice).allocations, before + 1);
        QCOMPARE(t.rows(), std::int64_t{2});
        QCOMPARE(t.cols(), std::int64_t{64});

        t.resize2d(16, 16);  // grows: keeps the elements, zeroes the new ones
        QCOMPARE(deviceMemory(kDevice).allocations, before + 2);
        QCOMPARE(t.capacityBytes(), std::size_t{16 * 16 * 4});
        QCOMPARE(t[127], 127.0f);
        QCOMPARE(t[128], 0.0f);
        QCOMPARE(t[255], 0.0f);
        QCOMPARE(reinterpret_cast<std::uintptr_t>(t.data()) % 64, std::uintptr_t{0});

        Tensor half({0}, DType::Float16, Device::cpu(kDevice));
        half.resize2d(4, 8);
        QCOMPARE(half.capacityBytes(), std::size_t{4 * 8 * 2});
        half.resize2d(8, 4);
        QCOMPARE(half.capacityBytes(), std::size_t{4 * 8 * 2});
        QCOMPARE(deviceMemory(kDevice).allocations, before + 3);
    }

    void countsOnItsOwnDevice() {
        constexpr int kOwn = 3, kThread = 4;
        const MemoryStats own0 = deviceMemory(kOwn), thread0 = deviceMemory(kThread);
        std::int64_t bytes = 0, ownWithCopy = 0, threadWithCopy = 0, threadAfterGrowth = 0;
        bool onOwnDevice = false, copyOnOwnDevice = false;
        Tensor moved;
        std::thread builder([&] {                                    // checks run on the test's thread, after join()
            const DeviceMemoryScope scope(kThread);                  // this thread's buffers count on device 4 ...
            Tensor t({256, 64}, DType::Float32, Device::cpu(kOwn));  // ... but this tensor is on cpu:3
            bytes = t.bytes();
            onOwnDevice = t.device() == Device::cpu(kOwn);
            const Tensor copy = t;  // a copy is on the same device
            copyOnOwnDevice = copy.device() == Device::cpu(kOwn);
            ownWithCopy = deviceMemory(kOwn).liveBytes;
            threadWithCopy = deviceMemory(kThread).liveBytes;
            t.resize2d(512, 64);  // growing on this thread still counts on cpu:3
            threadAfterGrowth = deviceMemory(kThread).liveBytes;
            moved = std::move(t);  // the buffer changes hands, not devices
        });
        builder.join();
        QCOMPARE(bytes, std::int64_t{256 * 64 * 4});
        QVERIFY(onOwnDevice);
        QVERIFY(copyOnOwnDevice);
        QVERIFY(ownWithCopy >= own0.liveBytes + 2 * bytes);
        QCOMPARE(threadWithCopy, thread0.liveBytes);
        QCOMPARE(threadAfterGrowth, thread0.liveBytes);
        QVERIFY(moved.device() == Device::cpu(kOwn));
        QVERIFY(deviceMemory(kOwn).liveBytes >= own0.liveBytes + moved.bytes());
        QCOMPARE(deviceMemory(kThread).liveBytes, thread0.liveBytes);
        moved = Tensor();  // freed on this thread, counted off cpu:3
        QCOMPARE(deviceMemory(kOwn).liveBytes, own0.liveBytes);
        QVERIFY(deviceMemory(kOwn).peakBytes >= own0.liveBytes + 512 * 64 * 4);

        // Copy assignment makes the copy on the source's device.
        Tensor onOwn({8}, DType::Float32, Device::cpu(kOwn));
        Tensor onThread({8}, DType::Float32, Device::cpu(kThread));
        onThread = onOwn;
        QVERIFY(onThread.device() == Device::cpu(kOwn));
        QCOMPARE(deviceMemory(kThread).liveBytes, thread0.liveBytes);
        QCOMPARE(deviceMemory(kOwn).liveBytes, own0.liveBytes + 2 * 8 * 4);
    }

    void copiesAndMoves() {
        Tensor a({2, 3}, {1, 2, 3, 4, 5, 6});
        Tensor b = a;
        QVERIFY(b.data() != a.data());
        QVERIFY(b.shape() == a.shape());
        b[0] = 10.0f;
        QCOMPARE(a[0], 1.0f);
        Tensor c({8});
        const float* cData = c.data();
        c = a;  // fits: reuses c's buffer
        QVERIFY(c.data() == cData);
        QCOMPARE(c[5], 6.0f);
        QVERIFY(c.shape() == (Shape{2, 3}));
        const float* aData = a.data();
        Tensor d = std::move(a);
        QVERIFY(d.data() == aData);
        QCOMPARE(a.size(), std::int64_t{0});  // NOLINT(bugprone-use-after-move): a moved-from tensor is empty
        QVERIFY(a.data() == nullptr);
        Tensor e;
        e = std::move(d);
        QVERIFY(e.data() == aData);
        QCOMPARE(e[4], 5.0f);
        static_assert(std::is_nothrow_move_constructible_v<Tensor> && std::is_nothrow_move_assignable_v<Tensor>);
    }

    void gpuDevicesAreRefused() {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Tensor({2}, DType::Float32, Device::gpu(0)));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Tensor({0}, DType::Float16, Device::gpu(1)));
        QCOMPARE(QString::fromStdString(thrownMessage([] {
                     Tensor({2, 2}, DType::Float32, Device::gpu(0));
                 })),
                 QStringLiteral("gpu:0: tensors on GPUs need the CUDA backend"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Tensor({2}, DType::Float32, Device::cpu(-1)));
    }

    void slicesShareMemory() {
        Tensor t({4, 3});
        for (std::int64_t i = 0; i < t.size(); ++i) t[i] = static_cast<float>(i);
        TensorView rows = t.slice(1, 3);
        QVERIFY(rows.shape() == (Shape{2, 3}));
        QCOMPARE(rows.rows(), std::int64_t{2});
        QCOMPARE(rows.cols(), std::int64_t{3});
        QCOMPARE(rows.size(), std::int64_t{6});
        QCOMPARE(rows.bytes(), std::int64_t{24});
        QVERIFY(rows.data() == t.data() + 3);
        QVERIFY(rows.device() == t.device());
        QCOMPARE(rows[0], 3.0f);
        rows[0] = 100.0f;  // writes through to the tensor
        rows.values()[5] = 200.0f;
        QCOMPARE(t[3], 100.0f);
        QCOMPARE(t[8], 200.0f);
        QVERIFY(rows.buffer().data == t.data() + 3);
        QCOMPARE(rows.buffer().count, std::int64_t{6});

        const TensorView row = rows.slice(1, 2);  // a slice of a slice
        QVERIFY(row.data() == t.data() + 6);
        QCOMPARE(row.size(), std::int64_t{3});
        QCOMPARE(t.slice(2, 2).size(), std::int64_t{0});
        const TensorView all = t.view();
        QVERIFY(all.data() == t.data());
        QVERIFY(all.shape() == t.shape());

        const Tensor& constant = t;
        const ConstTensorView readOnly = constant.slice(0, 1);
        static_assert(std::is_same_v<decltype(readOnly.data()), const float*>);
        static_assert(std::is_same_v<decltype(constant.view()), ConstTensorView>);
        QCOMPARE(readOnly[2], 2.0f);
        const ConstTensorView fromMutable = rows;  // a writable view reads as a const one
        QVERIFY(fromMutable.data() == rows.data());

        QVERIFY_THROWS_EXCEPTION(std::out_of_range, t.slice(-1, 2));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, t.slice(3, 2));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, t.slice(0, 5));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, rows.slice(0, 3));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, Tensor(Shape{}).slice(0, 1));  // a scalar has no rows

        // Slices of other dtypes and more axes step by whole rows of elements.
        Tensor half({3, 2, 2}, DType::Float16, Device::cpu(0));
        for (int i = 0; i < 12; ++i) half.data<std::uint16_t>()[i] = static_cast<std::uint16_t>(i);
        const TensorView last = half.slice(2, 3);
        QVERIFY(last.shape() == (Shape{1, 2, 2}));
        QCOMPARE(last.cols(), std::int64_t{4});
        QCOMPARE(last.data<std::uint16_t>()[0], std::uint16_t{8});
        QVERIFY(last.dtype() == DType::Float16);
        QVERIFY(last.buffer().dtype == DType::Float16);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, last.data<float>());
    }

    void reshapedViews() {
        Tensor t({2, 6});
        for (std::int64_t i = 0; i < t.size(); ++i) t[i] = static_cast<float>(i);
        const TensorView v = t.view().reshaped({3, 4});
        QVERIFY(v.shape() == (Shape{3, 4}));
        QCOMPARE(v.rows(), std::int64_t{3});
        QCOMPARE(v.cols(), std::int64_t{4});
        QVERIFY(v.data() == t.data());
        QCOMPARE(v.slice(1, 2)[0], 4.0f);
        const Shape flat{12};
        QCOMPARE(t.view().reshaped(flat).rows(), std::int64_t{12});
        QCOMPARE(t.view().reshaped({2, 3, 2}).cols(), std::int64_t{6});
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, t.view().reshaped({5}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, t.view().reshaped({-3, -4}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, t.view().reshaped({1, 1, 1, 1, 1, 1, 1, 1, 12}));  // over 8 axes
    }

    void oneDeviceType() {
        QCOMPARE(QString::fromStdString(Device::cpu(0).toString()), QStringLiteral("cpu:0"));
        QCOMPARE(QString::fromStdString(Device::gpu(1).toString()), QStringLiteral("gpu:1"));
        QCOMPARE(QString::fromStdString(Device{}.toString()), QStringLiteral("cpu:0"));
        static_assert(std::is_same_v<DeviceName, Device>);
        const DeviceName name{DeviceName::Kind::Gpu, 12};
        QVERIFY(name == Device::gpu(12));
        QVERIFY(name != Device::cpu(12));
        QVERIFY(!name.isCpu());
        QCOMPARE(name.index, 12);
    }
};

QTEST_APPLESS_MAIN(TestTensor)
#include "test_tensor.moc"
