// The project's one element-type enum: names, sizes, and the 16-bit conversions on worked bits
// (round to nearest even, overflow to infinity, subnormals, NaN).
#include <QtTest>

#include <cmath>
#include <limits>

#include "distlab/tensor/dtype.hpp"

using namespace distlab;

class TestDType : public QObject {
    Q_OBJECT
private slots:
    void namesAndSizes() {
        for (DType dtype : {DType::Float32, DType::Float16, DType::BFloat16, DType::Int32}) QVERIFY(parseDType(dtypeName(dtype)) == dtype);
        QCOMPARE(dtypeSize(DType::Float16), std::size_t{2});
        QCOMPARE(dtypeSize(DType::BFloat16), std::size_t{2});
        QCOMPARE(dtypeSize(DType::Int32), std::size_t{4});
        QVERIFY(!parseDType("float64").has_value());
        QVERIFY(!parseDType("F32").has_value());
    }

    void halfBits() {
        QCOMPARE(floatToHalf(1.0f), std::uint16_t{0x3C00});
        QCOMPARE(floatToHalf(-2.0f), std::uint16_t{0xC000});
        QCOMPARE(floatToHalf(65504.0f), std::uint16_t{0x7BFF});                    // the largest finite half
        QCOMPARE(floatToHalf(65520.0f), std::uint16_t{0x7C00});                    // rounds up to infinity
        QCOMPARE(floatToHalf(1.0f + 0x1p-11f), std::uint16_t{0x3C00});             // a tie goes to the even neighbour
        QCOMPARE(floatToHalf(1.0f + 0x1p-10f + 0x1p-11f), std::uint16_t{0x3C02});  // ... which here is above
        QCOMPARE(floatToHalf(0x1p-24f), std::uint16_t{0x0001});                    // the smallest subnormal
        QCOMPARE(halfToFloat(0x3555), 0.333251953125f);
        QVERIFY(std::isnan(halfToFloat(floatToHalf(std::numeric_limits<float>::quiet_NaN()))));
        for (std::uint32_t bits = 0; bits < 0x7C00; ++bits)  // every finite positive half survives the round trip
            QCOMPARE(floatToHalf(halfToFloat(static_cast<std::uint16_t>(bits))), static_cast<std::uint16_t>(bits));
    }

    void bfloat16Bits() {
        QCOMPARE(floatToBfloat16(1.0f), std::uint16_t{0x3F80});
        QCOMPARE(floatToBfloat16(1.0f + 0x1p-8f), std::uint16_t{0x3F80});  // tie to even
        QCOMPARE(floatToBfloat16(1.0f + 0x1p-7f + 0x1p-8f), std::uint16_t{0x3F82});
        QCOMPARE(bfloat16ToFloat(0x4049), 3.140625f);
        QCOMPARE(floatToBfloat16(3.0e38f), std::uint16_t{0x7F62});  // bfloat16 keeps float32's range
        QVERIFY(std::isnan(bfloat16ToFloat(floatToBfloat16(std::numeric_limits<float>::quiet_NaN()))));
    }

    void viewsOfBuffers() {
        std::vector<std::uint16_t> bits(3);
        const BufferView view(bits, DType::BFloat16);
        QCOMPARE(view.bytes(), std::int64_t{6});
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, BufferView(bits, DType::Float32));
        std::vector<float> values{1.0f, 2.5f};
        std::vector<std::uint16_t> narrow(2);
        narrow16(DType::Float16, values.data(), narrow.data(), 2);
        std::vector<float> back(2);
        widen16(DType::Float16, narrow.data(), back.data(), 2);
        QCOMPARE(back, values);
    }
};

QTEST_APPLESS_MAIN(TestDType)
#include "test_dtype.moc"
