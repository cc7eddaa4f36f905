/* cw_copy_safe's recovery points on x86-64 Linux (src/safe.c explains the
 * design). The struct safe_frame and struct safe_tls offsets used here are
 * checked by _Static_assert in src/safe.c.
 *
 * CWI_KERNELS_FIXED_REGS (set by the build when the copy kernels are
 * compiled with -ffixed-rbx -ffixed-rbp -ffixed-r12..r15): the kernels never
 * touch the callee-saved registers, so after a fault inside one they still
 * hold the caller's values and the fast path need not save them. The saves
 * are stores, and a 4 KiB copy in L1 is bound by store throughput: each one
 * costs about 0.4% there. tests/safe/test_safe_regs.c checks the registers
 * survive a fault either way. */
#if defined(__x86_64__) && defined(__linux__) && !defined(__CET__)

#define FRAME_RSP 0
#define FRAME_PREV 8
#define FRAME_DST 16
#define FRAME_SRC 24
#define FRAME_N 32
#define FRAME_SIZE 56
#define IMPL_COPY 16 /* offsetof(struct cwi_impl, copy) */

    .macro save_callee_saved base
    mov %rbx, \base(%rsp)
    mov %rbp, \base+8(%rsp)
    mov %r12, \base+16(%rsp)
    mov %r13, \base+24(%rsp)
    mov %r14, \base+32(%rsp)
    mov %r15, \base+40(%rsp)
    .endm
    .macro restore_callee_saved base
    mov \base(%rsp), %rbx
    mov \base+8(%rsp), %rbp
    mov \base+16(%rsp), %r12
    mov \base+24(%rsp), %r13
    mov \base+32(%rsp), %r14
    mov \base+40(%rsp), %r15
    .endm

    .text

/* int cwi_safe_call(struct safe_frame *f, safe_op op, unsigned hints):
 * arms f (the general path: any flags, nested copies, the slow path's
 * chunks), calls op(f->dst, f->src, f->n, hints) (op NULL: the active
 * implementation's temporal copy), disarms; returns 0. After a fault the
 * handler resumes at cwi_safe_landing with f->rsp as the stack pointer, and
 * the registers saved here are put back; returns 1. Arguments come from
 * the frame so that the C caller keeps nothing live in registers across the
 * call. Stack: 6 saves + 8 keep %rsp 16-byte aligned at the call. */
    .p2align 4
    .globl cwi_safe_call
    .hidden cwi_safe_call
    .type cwi_safe_call, @function
cwi_safe_call:
    .cfi_startproc
    sub $56, %rsp
    .cfi_adjust_cfa_offset 56
    save_callee_saved 8
    .cfi_rel_offset %rbx, 8
    .cfi_rel_offset %rbp, 16
    .cfi_rel_offset %r12, 24
    .cfi_rel_offset %r13, 32
    .cfi_rel_offset %r14, 40
    .cfi_rel_offset %r15, 48
    mov %rsp, FRAME_RSP(%rdi)
    mov %rdi, %rbx
    mov %rsi, %r12
    mov %edx, %r13d
    mov cwi_safe_tls@gottpoff(%rip), %r14
    mov %rdi, %fs:(%r14)            /* armed */
    test %r12, %r12
    jnz 1f
    mov cwi_active_row(%rip), %rax
    mov IMPL_COPY(%rax), %r12
1:
    mov FRAME_DST(%rbx), %rdi
    mov FRAME_SRC(%rbx), %rsi
    mov FRAME_N(%rbx), %rdx
    mov %r13d, %ecx
    call *%r12
    mov FRAME_PREV(%rbx), %rax
    mov %rax, %fs:(%r14)            /* disarmed: the outer copy, if any */
    xor %eax, %eax
.Lsafe_call_out:
    restore_callee_saved 8
    add $56, %rsp
    .cfi_adjust_cfa_offset -56
    ret
    .cfi_endproc
    .size cwi_safe_call, .-cwi_safe_call

    .p2align 4
    .globl cwi_safe_landing
    .hidden cwi_safe_landing
    .type cwi_safe_landing, @function
cwi_safe_landing:
    mov $1, %eax
    jmp .Lsafe_call_out
    .size cwi_safe_landing, .-cwi_safe_landing

/* size_t cwi_safe_fast(dst, src, n, tag): cw_copy_safe's common case (flags
 * 0 or CW_ZERO_TAIL, below the streaming threshold, not nested in another
 * armed copy), built to add as few stores as possible to a store-bound
 * copy: src and n go to the frame in one 16-byte store, then one 16-byte
 * store to the thread's block publishes dst and the armed word (this
 * frame's %rsp | tag) at once, so a signal handler never sees half of it;
 * the temporal kernel of the active row is called directly. The handler
 * completes the frame (dst, prev, flags) only after a fault. Stack: the
 * frame, the callee-saved registers (when the kernels may change them),
 * the return address: %rsp 16-byte aligned at the call.
 * cwi_safe_fast_landing (resumed with %rsp = the frame) returns
 * cwi_safe_recover(frame). */
#if CWI_KERNELS_FIXED_REGS
#define FAST_STACK 56
#else
#define FAST_STACK 104
#endif
    .p2align 4
    .globl cwi_safe_fast
    .hidden cwi_safe_fast
    .type cwi_safe_fast, @function
cwi_safe_fast:
    .cfi_startproc
    sub $FAST_STACK, %rsp
    .cfi_adjust_cfa_offset FAST_STACK
#if !CWI_KERNELS_FIXED_REGS
    save_callee_saved FRAME_SIZE
#endif
    movq %rsi, %xmm0
    movq %rdx, %xmm1
    punpcklqdq %xmm1, %xmm0
    movdqu %xmm0, FRAME_SRC(%rsp)   /* frame: src, n */
    or %rsp, %rcx
    movq %rcx, %xmm0
    movq %rdi, %xmm1
    punpcklqdq %xmm1, %xmm0
    mov cwi_safe_tls@gottpoff(%rip), %r8
    movdqu %xmm0, %fs:(%r8)         /* armed, with dst */
    mov cwi_active_row(%rip), %rax
    call *IMPL_COPY(%rax)
    mov cwi_safe_tls@gottpoff(%rip), %r8
    movq $0, %fs:(%r8)              /* disarmed */
    xor %eax, %eax
.Lsafe_fast_out:
    add $FAST_STACK, %rsp
    .cfi_adjust_cfa_offset -FAST_STACK
    ret
    .cfi_endproc
    .size cwi_safe_fast, .-cwi_safe_fast

    .p2align 4
    .globl cwi_safe_fast_landing
    .hidden cwi_safe_fast_landing
    .type cwi_safe_fast_landing, @function
cwi_safe_fast_landing:
#if !CWI_KERNELS_FIXED_REGS
    restore_callee_saved FRAME_SIZE
#endif
    mov %rsp, %rdi
    call cwi_safe_recover
    jmp .Lsafe_fast_out
    .size cwi_safe_fast_landing, .-cwi_safe_fast_landing

/* noreturn cwi_safe_resume(const uintptr_t regs[8]): for
 * cw_safe_handle_fault, which leaves the program's handler without
 * sigreturn: loads the interrupted context's callee-saved registers (rbx,
 * rbp, r12..r15 at regs[2..7]: a kernel built with them reserved left the
 * caller's values there), then %rsp = regs[0] and jumps to regs[1]. */
    .p2align 4
    .globl cwi_safe_resume
    .hidden cwi_safe_resume
    .type cwi_safe_resume, @function
cwi_safe_resume:
    mov 16(%rdi), %rbx
    mov 24(%rdi), %rbp
    mov 32(%rdi), %r12
    mov 40(%rdi), %r13
    mov 48(%rdi), %r14
    mov 56(%rdi), %r15
    mov 8(%rdi), %rax
    mov (%rdi), %rsp
    jmp *%rax
    .size cwi_safe_resume, .-cwi_safe_resume

#endif

    .section .note.GNU-stack, "", @progbits
