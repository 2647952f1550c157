// SPDX-License-Identifier: AGPL-3.0-or-later
// marquee-server --config FILE: the `option = value` file (runtime/serverconfig), read from a real file.
#include "fuzzcheck.h"
#include "runtime/serverconfig.h"

#include <QDir>
#include <QFile>
#include <cstdlib>
#include <unistd.h>

using namespace marquee;

namespace {
QString configPath;
}

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    // Only the file speaks: nothing of this machine's environment or systemd credentials.
    for (const char *variable : {"MARQUEE_DATA_DIR", "MARQUEE_DATABASE_URL", "MARQUEE_DATABASE_OWNER_URL", "MARQUEE_SIGNING_KEK_FILE",
                                 "MARQUEE_PAYMENT_PROVIDER_URL", "MARQUEE_PAYMENT_WEBHOOK_SECRET", "MARQUEE_EVENT_WEBHOOK_SECRET",
                                 "MARQUEE_PAYMENT_WEBHOOK_SECRET_FILE", "MARQUEE_EVENT_WEBHOOK_SECRET_FILE", "MARQUEE_LISTEN",
                                 "CREDENTIALS_DIRECTORY"})
        ::unsetenv(variable);
    // One file rewritten per input; in memory where the machine has a tmpfs (a disk's write latency would
    // make this target a hundred times slower than the others).
    const QString directory = QDir(QStringLiteral("/dev/shm")).exists() ? QStringLiteral("/dev/shm") : QDir::tempPath();
    configPath = directory + QStringLiteral("/marquee-fuzz-config-%1.conf").arg(::getpid());
    std::atexit([] { QFile::remove(configPath); });
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    {
        QFile file(configPath);
        FUZZ_CHECK(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        FUZZ_CHECK(file.write(reinterpret_cast<const char *>(data), qint64(size)) == qint64(size));
    }
    QString error;
    const auto config = ServerConfig::fromArguments({QStringLiteral("--config"), configPath}, &error);
    if (!config)
        return 0;
    // Whatever is accepted is within the documented ranges (ServerConfig::usage()).
    FUZZ_CHECK(config->threads >= 1 && config->threads <= 64);
    FUZZ_CHECK(config->holdTtlSeconds >= 1 && config->holdTtlSeconds <= 24 * 3600);
    FUZZ_CHECK(config->maxSeatsPerHold >= 1 && config->maxSeatsPerHold <= 100);
    FUZZ_CHECK(config->holdBatchSize >= 1 && config->holdBatchSize <= 64);
    FUZZ_CHECK(config->payments.cancelFeePercent >= 0 && config->payments.cancelFeePercent <= 100);
    FUZZ_CHECK(config->payments.cancelFeeMinor >= 0);
    FUZZ_CHECK(config->framing.maxHeaderBytes >= 1024 && config->framing.maxHeaderBytes <= 1024 * 1024);
    FUZZ_CHECK(config->framing.headerTimeoutMs >= 1000 && config->framing.bodyTimeoutMs >= 1000 && config->framing.idleTimeoutMs >= 1000);
    FUZZ_CHECK(!config->listenAddress.isNull());
    for (const QString &url : config->eventWebhooks)
        FUZZ_CHECK(url.startsWith(QLatin1String("http://")) || url.startsWith(QLatin1String("https://")));
    // A file's options are not typed on the command line: nothing of it is warned about as visible in ps.
    FUZZ_CHECK(config->warnings.isEmpty());
    return 0;
}
