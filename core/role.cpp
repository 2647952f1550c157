// SPDX-License-Identifier: AGPL-3.0-or-later
#include "role.h"

namespace marquee {

QString toString(Role role)
{
    switch (role) {
    case Role::Kiosk:
        return QStringLiteral("kiosk");
    case Role::Till:
        return QStringLiteral("till");
    case Role::Cashier:
        return QStringLiteral("cashier");
    case Role::Manager:
        return QStringLiteral("manager");
    case Role::Admin:
        return QStringLiteral("admin");
    }
    return {};
}

std::optional<Role> roleFromString(const QString &text)
{
    for (Role role : {Role::Kiosk, Role::Till, Role::Cashier, Role::Manager, Role::Admin}) {
        if (toString(role) == text)
            return role;
    }
    return std::nullopt;
}

} // namespace marquee
