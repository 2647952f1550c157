// SPDX-License-Identifier: AGPL-3.0-or-later
// protection/RequestFramer: the bytes of one HTTP connection, before Qt's parser sees any of them.
// The first input byte picks how the bytes arrive (read sizes, limits); the rest is the connection's stream.
#include "fuzzcheck.h"
#include "protection/requestframer.h"

#include <optional>

using namespace marquee;
using protection::FramingLimits;
using protection::FramingViolation;
using protection::RequestFramer;

namespace {
struct Outcome {
    std::optional<FramingViolation> violation;
    RequestFramer::Phase phase;
    quint64 completed = 0;
};

// Feed @p stream in reads of at most @p readSize bytes, passing over skippable body bytes as FramingSocket does.
Outcome run(const FramingLimits &limits, const QByteArray &stream, qint64 readSize)
{
    RequestFramer framer(limits);
    Outcome outcome;
    qint64 at = 0;
    while (at < stream.size() && !outcome.violation) {
        const qint64 end = std::min<qint64>(stream.size(), at + readSize);
        while (at < end) {
            if (const qint64 skippable = framer.skippable(); skippable > 0) {
                const qint64 count = std::min(skippable, end - at);
                framer.skip(count);
                at += count;
                continue;
            }
            qint64 used = -1;
            outcome.violation = framer.feed(stream.constData() + at, end - at, &used);
            FUZZ_CHECK(used >= 0 && used <= end - at);
            // Progress: a read is consumed, stopped at a skippable body, or refused.
            FUZZ_CHECK(used > 0 || framer.skippable() > 0 || outcome.violation);
            at += used;
            if (outcome.violation) {
                FUZZ_CHECK(framer.phase() == RequestFramer::Phase::Failed);
                break;
            }
        }
    }
    outcome.phase = framer.phase();
    outcome.completed = framer.completedRequests();
    return outcome;
}

void checkResponse(const FramingViolation &violation)
{
    FUZZ_CHECK(violation.status == 400 || violation.status == 413 || violation.status == 431);
    FUZZ_CHECK(!violation.code.isEmpty() && !violation.message.isEmpty());
    const QByteArray response = violation.response();
    FUZZ_CHECK(response.startsWith("HTTP/1.1 " + QByteArray::number(violation.status) + ' '));
    const qsizetype headEnd = response.indexOf("\r\n\r\n");
    FUZZ_CHECK(headEnd > 0);
    const QJsonDocument body = QJsonDocument::fromJson(response.mid(headEnd + 4));
    FUZZ_CHECK(body.object().value(QStringLiteral("error")).toString() == QString::fromLatin1(violation.code));
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const quint8 mode = data[0];
    const QByteArray stream = marquee::fuzz::input(data + 1, size - 1);
    FramingLimits limits;
    if (mode & 0x80) {
        // Small limits, so that inputs of a fuzzer's size reach them.
        limits.maxHeaderBytes = 1024;
        limits.maxBodyBytes = 64;
    }
    const Outcome whole = run(limits, stream, stream.size() + 1);
    if (whole.violation)
        checkResponse(*whole.violation);
    // TCP cuts a stream anywhere: the framing decided must not depend on where the reads end.
    for (const qint64 readSize : {qint64(1), qint64((mode & 0x7f) + 2)}) {
        const Outcome split = run(limits, stream, readSize);
        FUZZ_CHECK(split.phase == whole.phase);
        FUZZ_CHECK(split.completed == whole.completed);
        FUZZ_CHECK(split.violation.has_value() == whole.violation.has_value());
        if (split.violation)
            FUZZ_CHECK(split.violation->status == whole.violation->status && split.violation->code == whole.violation->code);
    }
    return 0;
}
