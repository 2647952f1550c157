// SPDX-License-Identifier: AGPL-3.0-or-later
#include "logging.h"

Q_LOGGING_CATEGORY(lcHttp, "marquee.http")
Q_LOGGING_CATEGORY(lcStore, "marquee.store")
Q_LOGGING_CATEGORY(lcEmbedded, "marquee.store.embedded")
Q_LOGGING_CATEGORY(lcJobs, "marquee.jobs")
Q_LOGGING_CATEGORY(lcRelay, "marquee.relay")
Q_LOGGING_CATEGORY(lcQueue, "marquee.queue")
Q_LOGGING_CATEGORY(lcPayments, "marquee.payments")
