// SPDX-License-Identifier: AGPL-3.0-or-later
#include "protection/requestid.h"

#include <QRandomGenerator>
#include <random>

namespace marquee::protection {

QByteArray newRequestId()
{
    thread_local std::mt19937_64 generator(QRandomGenerator::global()->generate64());
    return QByteArray::number(quint64(generator()), 16).rightJustified(16, '0');
}

} // namespace marquee::protection
