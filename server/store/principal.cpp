// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/principal.h"

namespace marquee::store {

QString Principal::owner() const
{
    if (kind == Kind::System)
        return QStringLiteral("system:") + name;
    return (kind == Kind::Device ? QStringLiteral("device:") : QStringLiteral("session:")) + QString::number(id);
}

} // namespace marquee::store
